#include "core/util/columns.h"

namespace oomscope {

std::string pad_right(std::string s, std::size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

}  // namespace oomscope
