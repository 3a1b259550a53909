// SPDX-License-Identifier: Apache-2.0
// Random D-Bus values for the fuzzer: well typed, wrongly typed, deeply nested and huge.

import DBusWire
import SecretServiceTestSupport

/// Builds argument values. Everything it makes is a valid D-Bus message body (the bus would drop the sender for
/// anything else), so hostility lies in types, shapes, sizes and meanings, never in broken framing.
struct FuzzValues {
    /// A descriptor to attach where a value of type `h` is made (a client may attach them to any call).
    let descriptor: UnixFileDescriptor

    static let basicTypes: [DBusType] = [
        .byte, .boolean, .int16, .uint16, .int32, .uint32, .int64, .uint64, .double, .string, .objectPath,
        .signature, .unixFD,
    ]

    static let strings: [String] = [
        "", "plain", "dh-ietf1024-sha256-aes128-cbc-pkcs7", "login", "session", "default", "Label", "Locked",
        "org.freedesktop.Secret.Collection.Label", "org.freedesktop.Secret.Item.Label",
        "org.freedesktop.Secret.Item.Attributes", "org.freedesktop.Secret.Service", "org.freedesktop.Secret.Item",
        "org.freedesktop.Secret.Collection", "org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface",
        "io.coffer.KeySlots", "password", "systemd-credential", "recovery",
        "../../etc/passwd", "/org/freedesktop/secrets/session/1", "%00%ff", "ünïcödé ✓ 🔑", "a b\tc\nd",
        "xdg:schema", "text/plain", String(repeating: "x", count: 300), String(repeating: "é", count: 5000),
    ]

    // MARK: - Types

    /// A random complete type, nesting at most `depth` containers.
    func randomType(depth: Int, using random: inout SeededRandom) -> DBusType {
        guard depth > 0, random.chance(40) else { return random.pick(Self.basicTypes + [.variant]) }
        switch random.below(3) {
        case 0: return .array(randomType(depth: depth - 1, using: &random))
        case 1: return .dictionary(key: random.pick(Self.basicTypes.filter { $0 != .unixFD }),
                                   value: randomType(depth: depth - 1, using: &random))
        default:
            return .structure((0..<(1 + random.below(3))).map { _ in randomType(depth: depth - 1, using: &random) })
        }
    }

    // MARK: - Values

    /// A value of `type`, drawn from hostile and ordinary choices alike.
    func value(of type: DBusType, paths: FuzzPaths, depth: Int = 0, using random: inout SeededRandom) -> DBusValue {
        switch type {
        case .byte: return .byte(UInt8.random(in: 0...255, using: &random))
        case .boolean: return .boolean(random.chance(50))
        case .int16: return .int16(Int16.random(in: .min ... .max, using: &random))
        case .uint16: return .uint16(UInt16.random(in: 0 ... .max, using: &random))
        case .int32: return .int32(random.pick([0, -1, .min, .max, Int32.random(in: .min ... .max, using: &random)]))
        case .uint32: return .uint32(random.pick([0, 1, .max, UInt32.random(in: 0 ... .max, using: &random)]))
        case .int64: return .int64(random.pick([0, -1, .min, .max]))
        case .uint64: return .uint64(random.pick([0, 1, .max, UInt64.random(in: 0 ... .max, using: &random)]))
        case .double: return .double(random.pick([0, -0.0, .infinity, -.infinity, .nan, 1e308, .leastNonzeroMagnitude]))
        case .string: return .string(string(using: &random))
        case .objectPath: return .objectPath(paths.random(nil, using: &random))
        case .signature: return .signature(random.pick(["", "s", "a{sv}", "(oayays)", "aaaai", "v"]))
        case .unixFD: return .unixFD(descriptor)
        case .variant:
            // Wrong types inside variants: anything but what the property or input expects, most of the time.
            let inner = depth < 6 ? randomType(depth: 2, using: &random) : .string
            return .variant(value(of: inner, paths: paths, depth: depth + 1, using: &random))
        case .array(.byte):
            return .bytes(bytes(using: &random))
        case .array(let element):
            // Descriptors multiply through nested arrays; a message may carry at most 253 of them.
            let count = depth > 4 || element.description.contains("h")
                ? random.below(3) : random.pick([0, 1, 2, 3, 16])
            return .array(element, (0..<count).map { _ in
                value(of: element, paths: paths, depth: depth + 1, using: &random)
            })
        case .dictionary(let key, let valueType):
            let count = depth > 4 ? random.below(2) : random.pick([0, 1, 2, 5])
            var entries: [DictEntry] = []
            for _ in 0..<count {
                let entryKey = key == .string && random.chance(50)
                    ? DBusValue.string(random.pick(FuzzMembers.propertyNames + Self.strings))
                    : value(of: key, paths: paths, depth: depth + 1, using: &random)
                entries.append(DictEntry(entryKey, value(of: valueType, paths: paths, depth: depth + 1, using: &random)))
            }
            return .dictionary(key: key, value: valueType, entries)
        case .structure(let fields):
            return .structure(fields.map { value(of: $0, paths: paths, depth: depth + 1, using: &random) })
        }
    }

    func string(using random: inout SeededRandom) -> String {
        random.chance(90) ? random.pick(Self.strings) : String(repeating: "k", count: random.pick([1, 255, 256, 4097]))
    }

    func bytes(using random: inout SeededRandom) -> [UInt8] {
        let count = random.pick([0, 1, 15, 16, 17, 32, 128, 129, 1024])
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
    }

    /// The plainest value of `type`: zero, empty, `/`, an empty-string variant.
    func minimal(of type: DBusType) -> DBusValue {
        switch type {
        case .byte: .byte(0)
        case .boolean: .boolean(false)
        case .int16: .int16(0)
        case .uint16: .uint16(0)
        case .int32: .int32(0)
        case .uint32: .uint32(0)
        case .int64: .int64(0)
        case .uint64: .uint64(0)
        case .double: .double(0)
        case .string: .string("")
        case .objectPath: .objectPath("/")
        case .signature: .signature("")
        case .unixFD: .unixFD(descriptor)
        case .variant: .variant(.string(""))
        case .array(.byte): .bytes([])
        case .array(let element): .array(element, [])
        case .dictionary(let key, let value): .dictionary(key: key, value: value, [])
        case .structure(let fields): .structure(fields.map(minimal))
        }
    }

    /// How many descriptors `values` carry. The bus drops a client whose message carries more than its
    /// `max_message_unix_fds` (16 by default), so the generator keeps bodies under that.
    static func descriptorCount(_ values: [DBusValue]) -> Int {
        values.reduce(0) { count, value in
            switch value {
            case .unixFD: count + 1
            case .array(_, let elements), .structure(let elements): count + descriptorCount(elements)
            case .dictionary(_, _, let entries): count + descriptorCount(entries.flatMap { [$0.key, $0.value] })
            case .variant(let inner): count + descriptorCount([inner])
            default: count
            }
        }
    }

    // MARK: - Hostile shapes

    /// A value nested `depth` times through variants, arrays and structures (the bus allows 32 array and 32
    /// structure levels in a signature, and 64 in all).
    func deeplyNested(depth: Int, using random: inout SeededRandom) -> DBusValue {
        var value = DBusValue.string("bottom")
        for level in 0..<depth {
            switch (level + random.below(3)) % 3 {
            case 0: value = .variant(value)
            case 1: value = .array(value.type, [value])
            default: value = .structure([value])
            }
        }
        return value
    }

    /// A huge value: a long string, a large byte array, or a long array of strings. Sizes straddle the daemon's
    /// per-call cap (8 MiB), so some are refused as too large and others reach the adaptors.
    func huge(using random: inout SeededRandom) -> DBusValue {
        switch random.below(4) {
        case 0: return .string(String(repeating: "h", count: random.pick([64 << 10, 1 << 20, 5 << 20])))
        case 1: return .bytes([UInt8](repeating: 0xA5, count: random.pick([1 << 20, 4 << 20, 9 << 20])))
        case 2: return .array(.string, Array(repeating: .string("element"), count: random.pick([10_000, 100_000])))
        default:
            let entries = (0..<20_000).map { DictEntry(.string("k\($0)"), .string("v")) }
            return .dictionary(key: .string, value: .string, entries)
        }
    }
}
