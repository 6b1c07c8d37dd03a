/*
** kneron.h: one Kneron PLUS tensor descriptor (kp.TensorDescriptor, as
** its Python print or get_member_variable_dict writes it in JSON), read
** into lay (the vendor room; its functions are lay.h's lay_kneron_*).
**
** The descriptor gives the NPU data layout (data_layout), the shape and
** the NPU strides (tensor_shape_info: version 2 `shape`, `stride_onnx`,
** `stride_npu`, as the KL730 reports them; version 1 `shape_npu`,
** `shape_onnx`, `axis_permutation_onnx_to_npu` of KL520, KL720, KL630)
** and the fixed point (quantization_parameters: quantized_axis and a
** list of {scale {dtype, value}, radix}). kneron.c checks every field and
** turns the descriptor into lay spec text: two definitions, `tensor`
** (fp32 on the CPU, fixed point to the NPU type: what the SDK's
** helper_convert_onnx_data_to_npu_data and
** kp_generic_inference_retrieve_float_node compute) and `tensor_fixed`
** (the NPU integers on the CPU: kp_generic_inference_retrieve_fixed_node).
**
** Version 2 is built from the strides themselves, the way the SDK walks
** them: the NPU element of ONNX index i is sum(i[k] * stride_npu[k]),
** plus (i[c] >> 4) * (G - 16) for the outer channel group formats
** (1W16C8B, 1W16C8BHL; c the axis of stride 1, G the largest
** shape[k] * stride_npu[k] of the other axes); high/low formats put
** element e at byte (e / 16) * 32 + e % 16 (low) and 16 further (high);
** 16-bit words (8W1C16B, RAW_16B) at 2e. Each axis becomes an order item
** with an explicit stride, given as an argument (the definition has one
** parameter per item; lay_kneron_info's ref holds the reference with the
** numbers). Version 1 gives no strides: it names the stdlib layout of the
** format on shape_npu (B, C, H, W; KL520's outputs when target_chip says
** KL520).
**
** The value rule is stdlib/kneron.lay's fixed(): per channel, descriptor
** k applies to index k of quantized_axis in every image (the SDK's helper
** uses blocks of N*H*W consecutive elements, wrong for N > 1); the scale
** is the descriptor's float32 value; the product x * scale * 2^radix is
** still computed in double, not in the SDK's float32 (see the stdlib).
**
** Errors are LAY_E_JSON with the JSON line:col (text that is not JSON)
** or the JSON path of the field in the message ("tensor_shape_info.data.
** stride_npu[2]: ..."); LAY_E_LIMIT past LAY_KNERON_MAX_JSON.
*/
#ifndef LI_KNERON_H
#define LI_KNERON_H

#include "lay.h"

#endif /* LI_KNERON_H */
