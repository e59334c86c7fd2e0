#include "core/snapshot/rank_job.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>

#include "core/snapshot/categories.h"
#include "core/snapshot/timeline.h"
#include "core/util/error.h"

namespace oomscope::snapshot {

namespace fs = std::filesystem;

const char* to_string(RankSource s) noexcept { return enum_name(kRankSourceNames, s, "?"); }

namespace {

// Every rank number one name carries.
std::vector<std::int64_t> ranks_in(const std::string& name) {
  std::vector<std::int64_t> out;
  std::string lower = name;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (std::size_t at = lower.find("rank"); at != std::string::npos; at = lower.find("rank", at + 1)) {
    if (at > 0 && std::isalpha(static_cast<unsigned char>(lower[at - 1]))) continue;
    std::size_t i = at + 4;
    if (i < lower.size() && (lower[i] == '_' || lower[i] == '-')) ++i;
    const std::size_t digits = i;
    while (i < lower.size() && std::isdigit(static_cast<unsigned char>(lower[i])) && i - digits < 9) ++i;
    if (i == digits || (i < lower.size() && std::isdigit(static_cast<unsigned char>(lower[i])))) continue;
    out.push_back(std::stoll(lower.substr(digits, i - digits)));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::set<std::string> site_set(const Snapshot& s) {
  const std::vector<std::string> v = program_sites(s);
  return {v.begin(), v.end()};
}

std::int64_t main_device_of(const Snapshot& s) { return default_device(s); }

std::string join_ranks(const std::vector<RankMember>& m) {
  std::string out;
  for (std::size_t i = 0; i < m.size(); ++i) out += (i ? ", " : "") + std::to_string(m[i].rank);
  return out;
}

}  // namespace

std::optional<RankInName> rank_in_name(const std::string& path, const std::string& shared) {
  const fs::path p = fs::path(path).lexically_normal();
  const std::string file = p.filename().string();
  const std::vector<std::int64_t> in_file = ranks_in(file);
  if (in_file.size() == 1) return RankInName{in_file.front(), file};
  if (in_file.size() > 1) return std::nullopt;
  fs::path stop = shared.empty() ? fs::path() : fs::path(shared).lexically_normal();
  if (!stop.empty() && stop.filename().empty()) stop = stop.parent_path();  // "/a/b/" is "/a/b"
  fs::path dir = p.parent_path();
  for (int depth = 0; depth < 3 && !dir.empty() && dir.filename() != dir && dir != stop;
       ++depth, dir = dir.parent_path()) {
    const std::string name = dir.filename().string();
    const std::vector<std::int64_t> r = ranks_in(name);
    if (r.size() == 1) return RankInName{r.front(), name};
    if (r.size() > 1) return std::nullopt;
  }
  return std::nullopt;
}

std::string shared_folder(const std::vector<std::string>& paths) {
  if (paths.size() < 2) return {};
  std::vector<fs::path> common;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const fs::path dir = fs::path(paths[i]).lexically_normal().parent_path();
    const std::vector<fs::path> parts(dir.begin(), dir.end());
    if (i == 0) {
      common = parts;
      continue;
    }
    std::size_t n = 0;
    while (n < common.size() && n < parts.size() && common[n] == parts[n]) ++n;
    common.resize(n);
  }
  fs::path out;
  for (const fs::path& part : common) out /= part;
  return out.string();
}

std::vector<std::string> program_sites(const Snapshot& s) {
  std::set<std::string> out;
  for (std::size_t id = 1; id < s.frame_lists.size(); ++id) {
    const std::string w = user_frame(s, static_cast<FramesId>(id));
    if (w.empty() || w.starts_with("no Python frame")) continue;  // C++ stacks name torch, not the program
    const std::size_t colon = w.rfind(".py:");
    const std::size_t slash = w.find_last_of("/\\", colon);
    out.insert(slash == std::string::npos || colon == std::string::npos ? w : w.substr(slash + 1));
  }
  return {out.begin(), out.end()};
}

RankGrouping group_ranks(const std::vector<std::shared_ptr<const Snapshot>>& snaps) {
  RankGrouping g;
  if (snaps.size() < 2) {
    g.not_a_job = "one snapshot is not a job of several ranks";
    return g;
  }
  std::vector<std::optional<RankInName>> named;
  std::size_t with_name = 0;
  std::vector<std::string> paths;
  for (const auto& s : snaps) paths.push_back(s->path);
  const std::string shared = shared_folder(paths);
  for (const auto& s : snaps) {
    named.push_back(rank_in_name(s->path, shared));
    with_name += named.back().has_value();
  }
  std::vector<std::size_t> candidates;
  if (with_name >= 2) {
    g.source = RankSource::FileName;
    for (std::size_t i = 0; i < snaps.size(); ++i) {
      if (!named[i]) {
        g.excluded.push_back({snaps[i]->path, "its name carries no rank number, as the others' names do"});
        continue;
      }
      for (std::size_t j : candidates)
        if (named[j]->rank == named[i]->rank && snaps[j]->path != snaps[i]->path)
          throw Error(ErrorKind::InvalidArgument, snaps[i]->path,
                      "claims rank " + std::to_string(named[i]->rank) + " by its name (" + named[i]->where +
                          "), as " + snaps[j]->path + " does; give each rank's snapshot once");
      candidates.push_back(i);
    }
  } else {
    // No names to go by: distinct device ids can still say which rank is which (one device per rank).
    std::set<std::int64_t> devices;
    for (const auto& s : snaps) devices.insert(main_device_of(*s));
    if (devices.size() != snaps.size()) {
      g.not_a_job = "the file names carry no rank numbers and the device ids do not tell the files apart";
      return g;
    }
    g.source = RankSource::DeviceId;
    for (std::size_t i = 0; i < snaps.size(); ++i) candidates.push_back(i);
  }
  // The same program: each file must share an allocation site with another one (when both recorded stacks).
  std::vector<std::set<std::string>> sites;
  for (std::size_t i : candidates) sites.push_back(site_set(*snaps[i]));
  std::vector<bool> shares(candidates.size(), false);
  std::size_t with_stacks = 0;
  for (std::size_t a = 0; a < candidates.size(); ++a) {
    with_stacks += !sites[a].empty();
    for (std::size_t b = 0; b < candidates.size() && !shares[a]; ++b)
      if (a != b)
        for (const std::string& w : sites[a])
          if (sites[b].count(w)) {
            shares[a] = true;
            break;
          }
  }
  const bool any_share = std::find(shares.begin(), shares.end(), true) != shares.end();
  std::vector<std::size_t> kept;
  for (std::size_t a = 0; a < candidates.size(); ++a) {
    if (any_share && !sites[a].empty() && !shares[a])
      g.excluded.push_back({snaps[candidates[a]]->path,
                            "shares no allocation site with the other ranks: a snapshot of another program"});
    else
      kept.push_back(candidates[a]);
  }
  if (with_stacks >= 2 && !any_share) {
    g.not_a_job = "the files share no allocation site: their stacks are of different programs";
    g.excluded.clear();
    return g;
  }
  if (kept.size() < 2) {
    g.not_a_job = "fewer than two files remain once those that do not belong are set aside";
    return g;
  }
  for (std::size_t i : kept) {
    RankMember m;
    m.input = i;
    m.device = main_device_of(*snaps[i]);
    if (g.source == RankSource::FileName) {
      m.rank = named[i]->rank;
      m.named_by = named[i]->where;
    } else {
      m.rank = m.device;
      m.named_by = "device " + std::to_string(m.device);
    }
    g.members.push_back(std::move(m));
  }
  std::sort(g.members.begin(), g.members.end(),
            [](const RankMember& a, const RankMember& b) { return a.rank < b.rank; });
  g.is_job = true;
  const std::string ranks = join_ranks(g.members);
  if (g.source == RankSource::FileName) {
    g.evidence.push_back("rank numbers in the file or folder names: ranks " + ranks + " [read]");
    bool device_is_rank = true, all_same = true;
    for (const RankMember& m : g.members) {
      device_is_rank = device_is_rank && m.device == m.rank;
      all_same = all_same && m.device == g.members.front().device;
    }
    if (device_is_rank)
      g.evidence.push_back(
          "each rank's snapshot records the device of its rank number (rank N on device N) "
          "[read]");
    else if (all_same)
      g.evidence.push_back("every rank records device " + std::to_string(g.members.front().device) +
                           " (one visible device per process): the device ids do not tell the ranks apart "
                           "[read]");
    else
      g.evidence.push_back(
          "the device ids differ from the rank numbers (several hosts, or devices "
          "remapped); the ranks are those of the names [read]");
  } else {
    g.evidence.push_back(
        "no rank numbers in the names; each file records another device, taken as its "
        "rank: ranks " +
        ranks + " [derived]");
  }
  if (with_stacks == 0)
    g.evidence.push_back("no file recorded stacks: the same program cannot be checked by its stacks");
  else if (any_share)
    g.evidence.push_back(
        "every rank with stacks shares allocation sites with another rank: the same "
        "program [derived]");
  return g;
}

}  // namespace oomscope::snapshot
