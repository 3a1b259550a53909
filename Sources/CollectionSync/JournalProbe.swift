// SPDX-License-Identifier: Apache-2.0
// Bytes-in entry points for the `sync-journal` fuzz target (Fuzz/targets) and its corpus test; not an API.

import SecretCrypto

/// Feeds arbitrary bytes to every decoder of the module with fixed keys.
@_spi(Fuzzing) public enum JournalProbe {
    /// What reading a journal gave.
    public enum Outcome: Equatable, Sendable {
        case records(Int, waitingForMore: Bool)
        case damaged
        /// The keys could not be made, or libgcrypt could not do the work (no secure memory left).
        case noKeys
    }

    /// The fixed identities and keys the corpus journals are written with.
    public static let collection = SyncIdentifier(bytes: [UInt8](repeating: 0x22, count: 16))!
    public static let device = SyncIdentifier(bytes: [UInt8](repeating: 0x11, count: 16))!
    public static let keys: SyncKeys? = (try? SecretBytes(copying: [UInt8](repeating: 0x33, count: 32)))
        .flatMap { try? SyncKeys(masterKey: $0, collection: collection) }

    /// Reads `bytes` as the device's journal twice: as found, and with the header MAC and every record's chain MAC
    /// made valid, so that mutations reach the sequence checks and the record decoder instead of stopping at a MAC.
    /// - Returns: the outcome of the second read.
    public static func readJournal(_ bytes: [UInt8]) -> Outcome {
        guard let keys else { return .noKeys }
        var asFound = JournalFollower(folder: SyncFolder(root: "/nonexistent", collection: collection), device: device)
        _ = try? asFound.read(bytes, keys: keys)
        var follower = JournalFollower(folder: SyncFolder(root: "/nonexistent", collection: collection), device: device)
        switch try? follower.read(validatingMACs(bytes, keys: keys), keys: keys) {
        case .success(let read)?: return .records(read.records.count, waitingForMore: read.waitingForMore)
        case .failure?: return .damaged
        case nil: return .noKeys
        }
    }

    /// Decodes `bytes` as a record's plaintext, a password wrap and a checkpoint.
    public static func decodeOthers(_ bytes: [UInt8]) {
        if let plaintext = try? SecretBytes(copying: bytes) { _ = try? SyncChange.decode(plaintext) }
        _ = try? PasswordWrap.decode(bytes)
        _ = try? JournalCheckpoint.decode(bytes)
    }

    /// `bytes` with a valid header MAC and chain MACs wherever the structure allows them.
    static func validatingMACs(_ bytes: [UInt8], keys: SyncKeys) -> [UInt8] {
        let fixed = JournalHeader.fixedByteCount
        guard bytes.count >= fixed,
              let authenticator = try? HMACSHA256.Authenticator(key: keys.chain) else { return bytes }
        let count = Int(bytes[fixed - 2]) << 8 | Int(bytes[fixed - 1])
        let fieldsEnd = fixed + count * JournalHeader.horizonEntryByteCount
        guard bytes.count >= fieldsEnd + JournalHeader.macByteCount,
              var chain = try? authenticator.code(for: Array("coffer-sync/1 header".utf8)[...], bytes[..<fieldsEnd])
        else { return bytes }
        var result = Array(bytes[..<fieldsEnd]) + chain
        var offset = fieldsEnd + JournalHeader.macByteCount
        while offset < bytes.count,
              case .complete(_, let covered, _, let end)? = try? JournalRecordCodec.frame(in: bytes, at: offset),
              let mac = try? authenticator.code(for: chain[...], covered) {
            result += covered
            result += mac
            chain = mac
            offset = end
        }
        return result + bytes[offset...]
    }
}
