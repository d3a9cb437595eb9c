cmake_policy(SET CMP0057 NEW)
# cmake -DLIBRARY=... -DOBJDUMP=... [-DMAX_GLIBC=2.17] [-DPORTABLE=ON] -P CheckJniLibrary.cmake
#
# Fails unless libfalcon_jni.so:
#   - exports exactly the JNI entry points (JNI_OnLoad, JNI_OnUnload);
#   - with PORTABLE, has no NEEDED libstdc++ / libgcc_s / libc++;
#   - with MAX_GLIBC, references no GLIBC_x.y symbol version above it.
# Prints what it found, so the test log doubles as the release check's record.

execute_process(COMMAND "${OBJDUMP}" -T "${LIBRARY}"
  OUTPUT_VARIABLE dynsyms RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "objdump -T ${LIBRARY} failed (${rc})")
endif()
execute_process(COMMAND "${OBJDUMP}" -p "${LIBRARY}"
  OUTPUT_VARIABLE headers RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "objdump -p ${LIBRARY} failed (${rc})")
endif()

set(failures "")
string(REPLACE "\n" ";" lines "${dynsyms}")
set(exported "")
set(versions "")
foreach(line IN LISTS lines)
  # Defined dynamic symbols: the section column is not *UND*.
  if(line MATCHES "^[0-9a-f]+ ([gw ]).* ([.A-Za-z_]+)[ \t]+[0-9a-f]+[ \t]+(\\([^)]*\\)|[A-Za-z0-9_.]+)?[ \t]*([A-Za-z_][A-Za-z0-9_]*)$")
    set(section "${CMAKE_MATCH_2}")
    set(symbol "${CMAKE_MATCH_4}")
    if(NOT section STREQUAL "*UND*" AND NOT symbol STREQUAL "" AND line MATCHES " g ")
      list(APPEND exported "${symbol}")
    endif()
  endif()
  string(REGEX MATCHALL "GLIBC_[0-9]+\\.[0-9]+(\\.[0-9]+)?" found "${line}")
  list(APPEND versions ${found})
endforeach()
list(REMOVE_DUPLICATES exported)
list(SORT exported)
list(REMOVE_DUPLICATES versions)
list(SORT versions COMPARE NATURAL)
message(STATUS "exported: ${exported}")
message(STATUS "glibc versions referenced: ${versions}")

foreach(symbol IN LISTS exported)
  if(NOT symbol MATCHES "^(JNI_OnLoad|JNI_OnUnload)$")
    list(APPEND failures "exports non-JNI symbol ${symbol}")
  endif()
endforeach()
if(NOT "JNI_OnLoad" IN_LIST exported)
  list(APPEND failures "does not export JNI_OnLoad")
endif()

string(REGEX MATCHALL "NEEDED +[^\n]+" needed "${headers}")
message(STATUS "needed: ${needed}")
if(PORTABLE)
  foreach(entry IN LISTS needed)
    if(entry MATCHES "libstdc\\+\\+|libgcc_s|libc\\+\\+")
      list(APPEND failures "dynamically links ${entry}")
    endif()
  endforeach()
endif()

if(MAX_GLIBC)
  foreach(v IN LISTS versions)
    string(REPLACE "GLIBC_" "" num "${v}")
    if(num VERSION_GREATER MAX_GLIBC)
      list(APPEND failures "needs ${v} (floor is GLIBC_${MAX_GLIBC})")
    endif()
  endforeach()
endif()

if(failures)
  string(REPLACE ";" "\n  " text "${failures}")
  message(FATAL_ERROR "${LIBRARY}:\n  ${text}")
endif()
message(STATUS "OK: ${LIBRARY}")
