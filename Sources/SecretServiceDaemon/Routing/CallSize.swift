// SPDX-License-Identifier: Apache-2.0
// Measures a call's arguments against the per-call size cap before any adaptor sees them.

import DBusWire

/// The size of a call's arguments, as the router counts it for ``ClientLimits/maximumCallBytes``: strings, paths,
/// signatures and byte arrays by length, fixed values by their wire size, containers by their contents plus their
/// length prefix. The bus already limits whole messages (128 MiB by the protocol); this lower cap keeps a single
/// call from turning into an oversized label, attribute set or search that the daemon then holds or scans.
enum CallSize {
    /// Whether `values` add up to more than `limit`. Stops counting as soon as the limit is passed, so measuring a
    /// huge body costs no more than measuring one just under the cap.
    static func exceeds(_ values: [DBusValue], limit: Int) -> Bool {
        var total = 0
        for value in values where add(value, to: &total, limit: limit) { return true }
        return false
    }

    /// Adds `value`'s size to `total`; returns `true` once `total` passes `limit`.
    private static func add(_ value: DBusValue, to total: inout Int, limit: Int) -> Bool {
        switch value {
        case .byte: total += 1
        case .boolean, .int32, .uint32, .unixFD: total += 4
        case .int16, .uint16: total += 2
        case .int64, .uint64, .double: total += 8
        case .string(let text): total += 4 + text.utf8.count + 1
        case .objectPath(let path): total += 4 + path.rawValue.utf8.count + 1
        case .signature(let signature): total += 1 + signature.rawValue.utf8.count + 1
        case .bytes(let bytes): total += 4 + bytes.count
        case .array(_, let elements), .structure(let elements):
            total += 4
            for element in elements where add(element, to: &total, limit: limit) { return true }
        case .dictionary(_, _, let entries):
            total += 4
            for entry in entries {
                if add(entry.key, to: &total, limit: limit) || add(entry.value, to: &total, limit: limit) {
                    return true
                }
            }
        case .variant(let inner):
            total += 3
            return add(inner, to: &total, limit: limit)
        }
        return total > limit
    }
}
