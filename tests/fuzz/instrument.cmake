# Included by the root CMakeLists.txt, before any library, when SW_ENABLE_FUZZ
# is on: checks that the C compiler has libFuzzer (clang) and, when it has,
# instruments every target of the build for coverage, ASan and UBSan, so the
# fuzz targets of this folder see and check the library code they call.
# Sets SW_HAVE_FUZZ.
include(CheckCSourceCompiles)
set(CMAKE_REQUIRED_FLAGS "-fsanitize=fuzzer")
check_c_source_compiles([[
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    (void)data;
    (void)size;
    return 0;
}
]] SW_COMPILER_HAS_LIBFUZZER)
unset(CMAKE_REQUIRED_FLAGS)

set(SW_HAVE_FUZZ OFF)
if(SW_COMPILER_HAS_LIBFUZZER)
  set(SW_HAVE_FUZZ ON)
  # fuzzer-no-link: coverage without libFuzzer's main(), which only the fuzz
  # targets link. Programs and tests of this build work as usual.
  add_compile_options("$<$<COMPILE_LANGUAGE:C>:-fsanitize=fuzzer-no-link,address,undefined>"
                      "$<$<COMPILE_LANGUAGE:C>:-fno-sanitize-recover=all;-fno-omit-frame-pointer>")
  add_link_options(-fsanitize=address,undefined)
  message(STATUS "swsearch: fuzz targets on (libFuzzer, ASan, UBSan)")
else()
  message(WARNING "SW_ENABLE_FUZZ: ${CMAKE_C_COMPILER} cannot build libFuzzer targets "
                  "(-fsanitize=fuzzer); configure with CC=clang. Fuzz targets are skipped.")
endif()
