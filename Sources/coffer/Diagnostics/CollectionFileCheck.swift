// SPDX-License-Identifier: Apache-2.0
// Reading cofferd's collection files without the password: header, record framing, and the generation ledger.

import Foundation

/// What can be verified of a `<id>.coffer` file without its password (see Sources/SecretStore/Persistence/FORMAT.md):
/// the magic and version, that the id inside matches the file name, that records are framed correctly, and that
/// the last record's generation is not older than the one `generations` recorded (an older copy put back). The
/// MACs need the password; cofferd checks them at unlock and drops a failing collection from its list, which
/// doctor notices by comparing files with the provider's collections.
struct CollectionFileCheck {
    enum Outcome: Equatable {
        case valid(id: String, generation: UInt64)
        case invalid(String)
    }

    static let magic: [UInt8] = Array("COFFER".utf8) + [0, 1]

    /// Reads `generations` (`<id> <generation>` per line).
    static func ledger(in directory: String) -> [String: UInt64] {
        guard let text = try? String(contentsOfFile: directory + "/generations", encoding: .utf8) else { return [:] }
        var ledger: [String: UInt64] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let generation = UInt64(parts[1]) { ledger[String(parts[0])] = generation }
        }
        return ledger
    }

    /// Checks one file.
    /// - Parameters:
    ///   - path: the file.
    ///   - recorded: the generation `generations` holds for its id, if any.
    static func check(_ path: String, recorded: UInt64?) -> Outcome {
        guard let data = FileManager.default.contents(atPath: path) else { return .invalid("cannot be read") }
        var reader = Reader(bytes: [UInt8](data))
        guard reader.take(8) == magic else { return .invalid("is not a coffer collection file (bad magic)") }
        guard let version = reader.u16(), version == 1 else { return .invalid("has an unknown format version") }
        guard let idLength = reader.u16(), let idBytes = reader.take(Int(idLength)),
              reader.take(8 + 32) != nil
        else { return .invalid("has a truncated header") }
        let id = String(decoding: idBytes, as: UTF8.self)
        let stem = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        guard id == stem else { return .invalid("holds collection '\(id)' but is named '\(stem).coffer'") }
        var generation: UInt64 = 0
        while !reader.atEnd {
            guard let length = reader.u32(), let body = reader.take(Int(length)), reader.take(32) != nil,
                  body.count >= 9
            else {
                // A torn last record is what a crash during an unacknowledged write leaves; cofferd ignores it.
                break
            }
            generation = body[1...8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        }
        if let recorded, generation < recorded {
            return .invalid("is older (generation \(generation)) than recorded in 'generations' (\(recorded)): "
                + "an older copy was put back or records were removed")
        }
        return .valid(id: id, generation: generation)
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0
        var atEnd: Bool { offset >= bytes.count }

        mutating func take(_ count: Int) -> [UInt8]? {
            guard count >= 0, offset + count <= bytes.count else { return nil }
            defer { offset += count }
            return Array(bytes[offset..<(offset + count)])
        }

        mutating func u16() -> UInt16? { take(2).map { UInt16($0[0]) << 8 | UInt16($0[1]) } }
        mutating func u32() -> UInt32? { take(4).map { $0.reduce(UInt32(0)) { $0 << 8 | UInt32($1) } } }
    }
}
