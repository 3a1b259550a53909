// SPDX-License-Identifier: Apache-2.0
// Where the records of the file a locked collection was built from end, so its unlock can verify without rebuilding.

#if canImport(Glibc)
import Glibc
#endif
import SecretCrypto

/// The shape of the file a locked collection was built from (the bytes themselves are its image, see
/// ``CollectionState/image``).
///
/// Loading builds a locked collection from bytes nothing has verified yet; an unlock has to verify the records it
/// serves. Reading the file again and finding the same bytes means the locked collection already holds exactly what
/// is being verified, so the unlock checks the chain of MACs over them and keeps what was built, instead of decoding
/// every record again (at the item limit that second decoding took longer than everything else).
struct LoadedImage: Sendable {
    /// Where the last complete record ends; a torn tail past it is not part of the image.
    let validLength: Int
    let headerLength: Int
    let lastSequence: UInt64

    init(_ parsed: ParsedFile) {
        validLength = parsed.validLength
        headerLength = parsed.headerBytes.count
        lastSequence = parsed.lastSequence
    }

    /// Whether `bytes` (read again) hold the same records as `image`.
    func matches(_ bytes: [UInt8], image: [UInt8]) -> Bool {
        guard bytes.count >= validLength, image.count >= validLength else { return false }
        return bytes.withUnsafeBytes { read in
            image.withUnsafeBytes { built in memcmp(read.baseAddress!, built.baseAddress!, validLength) == 0 }
        }
    }

    /// Checks the chain of MACs over `bytes`, which ``matches(_:image:)`` found to be the image: the records are
    /// walked by their length fields only, as the parse that built the collection already decoded them.
    /// - Returns: the last MAC of the chain, or `nil` if any record was altered.
    func verifyChain(_ bytes: [UInt8], key: SecretBytes) throws -> [UInt8]? {
        var mac = try Journal.headerMAC(bytes[..<headerLength], key: key)
        let authenticator = try HMACSHA256.Authenticator(key: key)
        var offset = headerLength
        while offset < validLength {
            guard offset + 4 <= validLength else { return nil }
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let macStart = offset + 4 + length
            guard macStart + Journal.macSize <= validLength else { return nil }
            mac = try authenticator.code(for: mac[...], bytes[offset..<macStart])
            guard ConstantTime.equal(mac, Array(bytes[macStart..<macStart + Journal.macSize])) else { return nil }
            offset = macStart + Journal.macSize
        }
        return mac
    }
}
