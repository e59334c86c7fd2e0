#pragma once
// The XSpace schema's field numbers (core/proto/xplane.proto), as the generated code names them. The scan
// walks the wire format by hand (docs/capture-format.md) and takes every field number it tests from here, so
// the numbers are the schema's and a misspelt field does not compile. Only these constants are used from
// the generated header; no message is ever parsed through it on the reading path.
//
//   switch (f.number) { case xf::XPlane::kLinesFieldNumber: ... }
//
// The generated constants are enumerators, so they serve as case labels and in constant expressions.

#include "xplane.pb.h"

namespace oomscope::capture::xf {

using tensorflow::profiler::XEvent;
using tensorflow::profiler::XEventMetadata;
using tensorflow::profiler::XLine;
using tensorflow::profiler::XPlane;
using tensorflow::profiler::XSpace;
using tensorflow::profiler::XStat;
using tensorflow::profiler::XStatMetadata;

// A map<K, V> field (XPlane's event_metadata and stat_metadata) is written as repeated entry messages whose
// key is field 1 and value field 2. Protobuf's wire format fixes these two numbers; the generated entry
// classes keep their constants protected, so they are named here.
inline constexpr int kMapKeyFieldNumber = 1;
inline constexpr int kMapValueFieldNumber = 2;

}  // namespace oomscope::capture::xf
