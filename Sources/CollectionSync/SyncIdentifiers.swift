// SPDX-License-Identifier: Apache-2.0
// The random 128-bit names of the synchronized world: devices, synchronized collections and items.

import SecretCrypto

/// Sixteen random bytes, written as 32 lowercase hex digits in file names and messages.
public struct SyncIdentifier: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The identifier's length in bytes.
    public static let byteCount = 16

    /// The raw bytes, always ``byteCount`` of them.
    public let bytes: [UInt8]

    /// - Returns: `nil` unless `bytes` holds exactly ``byteCount`` bytes.
    public init?(bytes: [UInt8]) {
        guard bytes.count == Self.byteCount else { return nil }
        self.bytes = bytes
    }

    /// Parses the 32 lowercase hex digits ``description`` writes; anything else (upper case included, so one
    /// identifier has one spelling in file names) gives `nil`.
    public init?(hex: some StringProtocol) {
        let digits = Array(hex.utf8)
        guard digits.count == Self.byteCount * 2 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.byteCount)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = Self.nibble(digits[index]), let low = Self.nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        self.bytes = bytes
    }

    /// A fresh identifier from the strong random generator. Collisions need about 2⁶⁴ identifiers.
    public static func random() -> SyncIdentifier {
        SyncIdentifier(bytes: SecureRandom.bytes(count: byteCount))!
    }

    public var description: String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(Self.byteCount * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Byte-wise order: the tie-break of the merge rule, the same on every machine.
    public static func < (lhs: SyncIdentifier, rhs: SyncIdentifier) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}

/// A device (one machine's cofferd for one synchronized collection): made once, kept in the local data directory,
/// and the name of the device's journal in the folder.
public typealias DeviceID = SyncIdentifier

/// A synchronized collection: made by `sync enable`, the name of its directory in the folder and part of every key
/// derivation and every record's associated data. Local collection names never reach the folder.
public typealias SyncCollectionID = SyncIdentifier

/// An item, the same on every device: assigned at creation (not the local D-Bus item name, which each cofferd
/// chooses for itself), so a change made anywhere names the same item everywhere.
public typealias SyncItemID = SyncIdentifier
