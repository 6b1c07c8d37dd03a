/*
** hsi.h: AMD's flexmlrt-hsi.json compilation report, read into lay
** (the vendor room; its functions are lay.h's lay_hsi_*).
**
** A report lists `inputs` and `outputs`; each tensor entry describes the
** CPU side (cpu_shape, cpu_format, cpu_dtype), the NPU buffer (hw_shape,
** hw_format, hw_dtype), a boundary quantization (scale_factor, zero_point;
** -1.0 = unset) and optionally an explicit rt_transformations chain.
** lay_hsi_parse checks every field and turns every entry into lay spec TEXT
** (a `layout` for the annotation form, a `transform` for the chain), which
** lay_hsi_load compiles through the ordinary front end, so that JSON and
** specs share one IR and one planner. The definitions are named
** NS.input0, NS.output1, ... (the chain when the entry has one, else the
** annotation) and NS.input0_ann (the annotation, when the entry also has
** a chain and cpu_format -> hw_format gives the declared hw_shape;
** --check runs both). An entry with an inconsistency is not defined (its
** text appears commented out).
**
** One entry never takes the report down: a field that cannot be read, an
** unknown format (hsi_format.c lists every one AMD's tools and VART
** write, with its source) or generated text lay refuses makes that entry
** unusable (a fatal issue with its JSON path), and the others work.
** Numbers written as strings and upper-case dtype names are read with a
** note; integers are read exactly from their text (64 bits). Equal
** cpu_dtype and hw_dtype never rescale. cpu N > 1 with a hw_shape of one
** frame (N = 1) is N frame buffers (lay_hsi_info.frames).
**
** Every definition maps the CPU tensor to the NPU buffer (pack); for an
** output the report lists the chain NPU -> CPU, which is inverted here.
**
** Errors are LAY_E_JSON with either the JSON line:col (text that is not
** strict JSON; the column counts characters) or the JSON path of the
** offending field in the message ("inputs[0].rt_transformations[2].perm:
** ..."); LAY_E_LIMIT for a report over LAY_HSI_MAX_JSON bytes or nested
** deeper than cJSON's 1000 levels.
*/
#ifndef LI_HSI_H
#define LI_HSI_H

#include "lay.h"

#endif /* LI_HSI_H */
