# tests/conformance/check_run.cmake: runs one `lay` command and checks its
# exit status and its exact output (or a regex over it). Run by CTest:
#   cmake -DLAY=path/to/lay "-DARGS=test;file.lay" [-DFAIL=1]
#         [-DEXPECTED=file | "-DMATCH=regex"] [-DSTREAM=stderr]
#         [-DLAY_PATH=folder] [-DFILE=path] -P check_run.cmake
# ARGS is the argument list (';'-separated). FAIL=1: the command must exit
# non-zero; else it must exit 0. EXPECTED: the output must be exactly that
# file's text; MATCH: it must match the regex. STREAM says which output is
# compared (stdout by default). In EXPECTED and MATCH, @FILE@ stands for
# FILE as given (regex-escaped in MATCH). LAY_PATH is set for the command
# (and unset when not given).
cmake_minimum_required(VERSION 3.18)
if(DEFINED LAY_PATH)
  set(ENV{LAY_PATH} "${LAY_PATH}")
else()
  unset(ENV{LAY_PATH})
endif()
execute_process(COMMAND ${LAY} ${ARGS}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(what "lay ${ARGS}")
if(FAIL AND rc EQUAL 0)
  message(FATAL_ERROR "${what} succeeded, but it must fail:\n${out}${err}")
elseif(NOT FAIL AND NOT rc EQUAL 0)
  message(FATAL_ERROR "${what} failed (exit ${rc}):\n${out}${err}")
endif()
if(STREAM STREQUAL "stderr")
  set(got "${err}")
else()
  set(got "${out}")
endif()
if(DEFINED MATCH)
  string(REGEX REPLACE "([][.+*?^$()|\\\\])" "\\\\\\1" file_re "${FILE}")
  string(REPLACE "@FILE@" "${file_re}" re "${MATCH}")
  if(NOT got MATCHES "${re}")
    message(FATAL_ERROR "${what}: the output does not match ${re}\n--- got (stdout):\n${out}--- stderr:\n${err}")
  endif()
elseif(DEFINED EXPECTED)
  file(READ ${EXPECTED} want)
  string(REPLACE "@FILE@" "${FILE}" want "${want}")
  if(NOT got STREQUAL want)
    message(FATAL_ERROR "${what}: unexpected output.\n--- expected:\n${want}--- got (stdout):\n${out}--- stderr:\n${err}")
  endif()
endif()
message(STATUS "${what}: exit ${rc}, output as expected")
