#pragma once
// A grant against the hardware: what it recorded when written, what its name reaches now, and
// what another repository reserved. The one place the grant store, `grants apply`, the gate,
// the views and doctor ask whether a name moved or reaches a reserved card.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cdi/spec_index.h"
#include "grants/grant_set.h"
#include "probe/hardware_identity.h"

namespace rgpu::grants {

/// A name keyed by hardware that reaches other hardware than its key names: a name keyed by a PCI
/// address ("rediacc.io/dri=pci-0000-01-00.0", "…-cpx3" for a partition) must reach that card
/// (that partition) and nothing else, one keyed by a GPU's UUID that GPU (or slices of it). A spec
/// written before the cards moved maps another card's nodes under the old key.
struct KeyElsewhere {
  std::string key;   ///< what the name is keyed by: "0000:01:00.0", "0000:03:00.0/cpx3", a GPU's UUID
  std::string maps;  ///< what it maps now: its cards, else its identities, else "nothing"
};
std::optional<KeyElsewhere> key_elsewhere(std::string_view qualified_name, const probe::Reach& now);

/// "NAME is keyed by KEY but maps MAPS now", or empty when the name is where its key says.
std::string stale_key(std::string_view qualified_name, const probe::Reach& now);

/// The advice for a stale spec, the same everywhere it is given.
inline constexpr std::string_view kStaleSpecs =
    "the specs are stale: run rediacc-gpu setup (or rediacc-gpu cdi generate and, for NVIDIA, systemctl start "
    "nvidia-cdi-refresh.service)";

/// GrantMove::stale's words for a granted name that no spec defines.
inline constexpr std::string_view kUndefined = "no CDI spec on this machine defines it";

/// What a grant of `device` records as its hardware: the live identities of its GPU's own nodes.
/// Fails, naming the node, when one cannot be told (the card is gone, the spec is stale), and when
/// a keyed name reaches another card than its key (stale_key).
Result<std::vector<std::string>> hardware_of(const probe::HardwareReader& reader, const cdi::IndexedDevice& device);

/// Identities in `now` that `recorded` does not cover: where the name reaches that it was not
/// granted on. Empty when nothing moved.
std::vector<std::string> moved_to(const std::vector<std::string>& recorded, const std::vector<std::string>& now);

/// The first identity the two lists share, either covering the other (a GPU and a partition of
/// it); empty when they reach nothing in common.
std::string shared_hardware(const std::vector<std::string>& a, const std::vector<std::string>& b);

/// A grant of another repository than `repo`, exclusive, whose recorded hardware `now` reaches,
/// or null.
const Grant* reserved_by_other(const GrantSet& set, const std::string& repo, const std::vector<std::string>& now);

/// A grant whose name reaches other hardware now than it recorded, or whose hardware cannot be
/// told now (the card is gone): what setup, doctor, `grants` and metrics report.
struct GrantMove {
  /// Whether the specs are stale for this name, and how: what the gate, doctor and `grants` branch on.
  enum class Stale { no, undefined, key_elsewhere };
  Grant grant;
  std::vector<std::string> now = {};  ///< the hardware it reaches now, when it could be read
  std::string unreadable = {};        ///< why the hardware could not be read, else empty
  /// No spec defines it any more (undefined), or its key names another card than it reaches
  /// (key_elsewhere, with `elsewhere`): the gate refuses it as the specs stand.
  Stale stale_kind = Stale::no;
  std::optional<KeyElsewhere> elsewhere = std::nullopt;
  /// The words for people that say why the specs are stale, else empty.
  std::string stale = {};
};

/// What a grant's name reaches now: absent when no spec defines it, an error when its hardware
/// cannot be read.
using ReachNow = Result<std::optional<probe::Reach>>;

/// How `grant` stands against what its name reaches now, in the order every reader judges it:
/// unreadable, defined by no spec, stale (stale_key), or (for a grant that recorded its hardware)
/// reaching anything else than it was granted on; nothing when it holds. The one verdict on a
/// grant the gate refuses by, doctor fails and moved_grants lists. Pure.
std::optional<GrantMove> grant_move(const Grant& grant, const ReachNow& now);

/// What the name `device` reaches now as `index` defines it, read by `reader`.
ReachNow reach_now(const probe::HardwareReader& reader, const cdi::SpecIndex& index, const std::string& device);

/// grant_move of every grant of `set`, as `index` defines its name now.
std::vector<GrantMove> moved_grants(const probe::HardwareReader& reader, const cdi::SpecIndex& index,
                                    const GrantSet& set);

/// One sentence for setup and `grants apply`: which repository's name moved, from where to where,
/// what the gate does about it and the two ways out.
std::string move_warning(const GrantMove& move);

/// "granted on 0000:01:00.0, now 0000:03:00.0": a move as one clause.
std::string move_clause(const std::vector<std::string>& recorded, const std::vector<std::string>& now);

}  // namespace rgpu::grants
