// SPDX-License-Identifier: Apache-2.0
// An entry point for fuzzing the access log's readers with arbitrary bytes.

import SecretCrypto

/// Runs untrusted bytes through what `coffer access log` meets in a log file: the header, the record framing and
/// chain checks, the key-change records, and an opened record's entry lines in every readable version. Sealed
/// records need keys a fuzzer cannot forge, so the entry lines are also read from the bytes directly. For fuzz
/// targets only, hence the SPI.
@_spi(Fuzzing)
public enum AccessLogProbe {
    /// Reads `bytes` as a log file, with one unlocked and one locked collection, and as an entry record's plaintext.
    /// - Returns: how many entries were read, so the work cannot be optimised away; crashes are the findings.
    public static func read(_ bytes: [UInt8]) -> Int {
        guard let key = try? SecretBytes(count: 32) else { return 0 }
        let file = AccessLogReader.File(name: "access.log", bytes: bytes)
        let reader = AccessLogReader(keys: ["login": key], lockedCollections: ["work"])
        var count = reader.read([file], since: 0).entries.count
        count += AccessLogReader.collections(in: [file]).count
        for version in AccessLogFormat.readableVersions {
            count += AccessLogReader.entries(in: bytes, fileVersion: version)?.count ?? 0
        }
        return count
    }
}
