# Run at build time, after a QtTest program links: lists its test functions
# (`PROGRAM -functions`) and writes a CTest file with one test per function,
# so that ctest can run one program's cases side by side. Variables:
#   PROGRAM   the test executable
#   NAME      the test program's name (each test is NAME.function)
#   OUTPUT    the CTest file to write
#   LABELS, TIMEOUT   properties of every case
#   STATE_DIR the folder under which each case gets a settings folder of its own
execute_process(COMMAND ${CMAKE_COMMAND} -E env QT_QPA_PLATFORM=offscreen ${PROGRAM} -functions
                OUTPUT_VARIABLE listing ERROR_VARIABLE errors RESULT_VARIABLE status TIMEOUT 60)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${NAME} -functions failed (${status}): ${errors}")
endif()
string(REPLACE "\n" ";" lines "${listing}")
set(content "# Written by QtTestDiscovery.cmake from `${NAME} -functions`; do not edit.\n")
set(count 0)
foreach(line IN LISTS lines)
  string(STRIP "${line}" line)
  if(line STREQUAL "")
    continue()
  endif()
  if(NOT line MATCHES "^([A-Za-z_][A-Za-z0-9_]*)\\(\\)$")
    message(FATAL_ERROR "${NAME} -functions listed '${line}', which is no test function's name: no case may go unrun")
  endif()
  set(function "${CMAKE_MATCH_1}")
  set(test "${NAME}.${function}")
  # Each case's QSettings, autosaves and caches in a folder of its own:
  # two cases side by side must not see each other's saved docks or results.
  # Emptied before each run, so that a rerun starts as a fresh checkout does.
  set(state "${STATE_DIR}/${test}")
  string(APPEND content
         "add_test([=[${test}]=] sh -c [=[rm -rf \"$0\" && exec \"$1\" \"$2\"]=] [==[${state}]==] [==[${PROGRAM}]==] [=[${function}]=])\n"
         "set_tests_properties([=[${test}]=] PROPERTIES LABELS [=[${LABELS}]=] TIMEOUT ${TIMEOUT} COST ${TIMEOUT} "
         # A QSKIP (with its reason) is reported skipped, not passed, but
         # only where nothing failed (a skip pattern wins over the status).
         "SKIP_REGULAR_EXPRESSION [=[Totals: [0-9]+ passed, 0 failed, [1-9][0-9]* skipped]=] "
         "ENVIRONMENT [=[QT_QPA_PLATFORM=offscreen;XDG_CONFIG_HOME=${state}/config]=])\n")
  math(EXPR count "${count} + 1")
endforeach()
if(count EQUAL 0)
  message(FATAL_ERROR "${NAME} -functions listed no test function:\n${listing}")
endif()
file(WRITE "${OUTPUT}" "${content}")
