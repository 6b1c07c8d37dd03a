# tests/conformance/check_fails.cmake: runs `lay test` on a deliberately
# wrong test file and checks that it fails (non-zero exit) with exactly the
# expected report. Run by CTest:
#   cmake -DLAY=path/to/lay -DFILE=bad/wrong.lay -DEXPECTED=bad/wrong.expected
#         -P check_fails.cmake
# In EXPECTED, @FILE@ stands for the test file's path as given. With
# -DMATCH=REGEX instead of EXPECTED, the output must match REGEX (@FILE@
# replaced by the path, regex-escaped).
cmake_minimum_required(VERSION 3.18)
execute_process(COMMAND ${LAY} test ${FILE}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "lay test ${FILE} passed, but it must fail:\n${out}${err}")
endif()
if(DEFINED MATCH)
  string(REPLACE "." "\\." file_re "${FILE}")
  string(REPLACE "+" "\\+" file_re "${file_re}")
  string(REPLACE "@FILE@" "${file_re}" re "${MATCH}")
  if(NOT out MATCHES "${re}")
    message(FATAL_ERROR "lay test ${FILE}: the report does not match ${re}\n--- got (stdout):\n${out}--- stderr:\n${err}")
  endif()
  message(STATUS "lay test ${FILE} failed as expected (exit ${rc})")
  return()
endif()
file(READ ${EXPECTED} want)
string(REPLACE "@FILE@" "${FILE}" want "${want}")
if(NOT out STREQUAL want)
  message(FATAL_ERROR "lay test ${FILE}: unexpected report.\n--- expected:\n${want}--- got (stdout):\n${out}--- stderr:\n${err}")
endif()
message(STATUS "lay test ${FILE} failed as expected (exit ${rc})")
