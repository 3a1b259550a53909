// SPDX-License-Identifier: Apache-2.0
// Reading, verifying and appending to the record chain of a collection file.

#if canImport(Glibc)
import Glibc
#endif
import SecretCrypto

/// One complete record as found in a file.
struct Frame: Sendable {
    var sequence: UInt64
    var record: FileRecord
    /// `length | body`, the bytes the chain MAC covers besides the previous MAC.
    var covered: ArraySlice<UInt8>
    var mac: ArraySlice<UInt8>
}

/// A file parsed without keys: enough to list items and search while locked.
struct ParsedFile: Sendable {
    /// The whole file, which the frames' slices point into.
    var bytes: [UInt8]
    var header: FileHeader
    var headerBytes: ArraySlice<UInt8>
    var frames: [Frame]
    /// The file ends inside a record: the trace of a crash during a write that was never acknowledged.
    var hasTornTail: Bool
    /// Where the last complete record ends.
    var validLength: Int

    var lastSequence: UInt64 { frames.last?.sequence ?? 0 }
}

enum Journal {
    static let macSize = 32
    static let maximumRecord = 80 << 20

    /// Parses a file's structure. Records must carry consecutive sequence numbers.
    static func parse(_ bytes: [UInt8]) throws(FormatError) -> ParsedFile {
        let (header, headerLength) = try FileHeader.decode(bytes)
        var frames: [Frame] = []
        var offset = headerLength
        var torn = false
        while offset < bytes.count {
            guard bytes.count - offset >= 4 else { torn = true; break }
            var reader = ByteReader(bytes[offset..<offset + 4])
            let length = Int(try reader.u32())
            guard length <= maximumRecord else { throw FormatError("oversized record") }
            let end = offset + 4 + length + macSize
            guard end <= bytes.count else { torn = true; break }
            let (sequence, record) = try FileRecord.decodeBody(bytes[offset + 4..<offset + 4 + length])
            // Compaction keeps numbering where the old file stopped, so only the first record may start anywhere.
            // The top of the range is refused too: nothing could follow it (and counting past it would trap).
            guard sequence > 0, sequence < .max, frames.last.map({ sequence == $0.sequence + 1 }) ?? true else {
                throw FormatError("records out of order")
            }
            frames.append(Frame(sequence: sequence, record: record, covered: bytes[offset..<offset + 4 + length],
                                mac: bytes[end - macSize..<end]))
            offset = end
        }
        return ParsedFile(bytes: bytes, header: header, headerBytes: bytes[0..<headerLength], frames: frames, hasTornTail: torn,
                          validLength: offset)
    }

    /// The MAC that starts the chain.
    static func headerMAC(_ headerBytes: ArraySlice<UInt8>, key: SecretBytes) throws -> [UInt8] {
        try HMACSHA256.authenticationCode(for: Array("coffer/1 header".utf8) + headerBytes, key: key)
    }

    static func link(_ previous: [UInt8], _ covered: ArraySlice<UInt8>, key: SecretBytes) throws -> [UInt8] {
        var message = previous
        message += covered
        return try HMACSHA256.authenticationCode(for: message, key: key)
    }

    /// Checks every record's MAC; returns the last MAC of the chain, or `nil` if any record was altered.
    static func verify(_ parsed: ParsedFile, key: SecretBytes) throws -> [UInt8]? {
        var mac = try headerMAC(parsed.headerBytes, key: key)
        // One keyed context for the whole chain: at the item limit, opening one per record took longer than the MACs.
        let authenticator = try HMACSHA256.Authenticator(key: key)
        for frame in parsed.frames {
            mac = try authenticator.code(for: mac[...], frame.covered)
            guard ConstantTime.equal(mac, Array(frame.mac)) else { return nil }
        }
        return mac
    }

    /// `length | body | mac` for one record, and the new chain MAC.
    static func frame(_ record: FileRecord, sequence: UInt64, previous: [UInt8], key: SecretBytes) throws
        -> (bytes: [UInt8], mac: [UInt8]) {
        let body = record.encodeBody(sequence: sequence)
        var writer = ByteWriter(capacity: body.count + 40)
        writer.u32(UInt32(body.count))
        writer.raw(body)
        let mac = try link(previous, writer.bytes[...], key: key)
        writer.raw(mac)
        return (writer.bytes, mac)
    }

    /// A complete file: header and records with a fresh chain, sequences from `firstSequence` on.
    static func encodeFile(header: FileHeader, records: [FileRecord], firstSequence: UInt64, key: SecretBytes) throws
        -> (bytes: [UInt8], mac: [UInt8]) {
        var bytes = header.encode()
        var mac = try headerMAC(bytes[...], key: key)
        var sequence = firstSequence
        for record in records {
            let framed = try frame(record, sequence: sequence, previous: mac, key: key)
            bytes += framed.bytes
            mac = framed.mac
            sequence += 1
        }
        return (bytes, mac)
    }
}

/// Appends records to an open collection file; ``FileSyncer`` makes them durable.
final class JournalWriter {
    let path: String
    private var fd: Int32
    private(set) var lastMAC: [UInt8]
    private(set) var nextSequence: UInt64
    /// Where the next record goes; a torn tail beyond it is overwritten.
    private var length: Int
    /// Whether the file may hold bytes beyond ``length`` (a torn tail, or an unknown size), which the next append
    /// cuts off. The usual append needs no truncation: the file ends where the last record does.
    private var mayHaveTail = true

    /// Opens the file for writing if it can; when it cannot (a read-only mount), the collection still unlocks and
    /// serves reads, and each write tries again and fails with the system's reason.
    init(path: String, lastMAC: [UInt8], nextSequence: UInt64, length: Int) {
        fd = open(path, O_WRONLY | O_CLOEXEC)
        self.path = path
        self.lastMAC = lastMAC
        self.nextSequence = nextSequence
        self.length = length
    }

    deinit { if fd >= 0 { close(fd) } }

    /// Appends `record` without waiting for the disk; the caller makes it durable by handing the returned descriptor
    /// to a ``FileSyncer`` before it acknowledges the change. A failed write cuts the file back to its last record.
    /// - Returns: the record's sequence number (the collection's new generation) and a duplicate of the file's
    ///   descriptor, which the syncer closes.
    func append(_ record: FileRecord, key: SecretBytes) throws -> (generation: UInt64, syncHandle: Int32) {
        let framed = try Journal.frame(record, sequence: nextSequence, previous: lastMAC, key: key)
        if fd < 0 {
            fd = open(path, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { throw StorageError("cannot open", path) }
            mayHaveTail = true
        }
        let handle = dup(fd)
        guard handle >= 0 else { throw StorageError("cannot duplicate the descriptor of", path) }
        do {
            try POSIXFile.writeAll(fd, framed.bytes, at: length, path: path)
            if mayHaveTail {
                guard ftruncate(fd, off_t(length + framed.bytes.count)) == 0 else {
                    throw StorageError("cannot size", path)
                }
            }
        } catch {
            // The failed write may have left part of the record: cut it, or leave the next append to.
            mayHaveTail = ftruncate(fd, off_t(length)) != 0
            close(handle)
            throw error
        }
        mayHaveTail = false
        length += framed.bytes.count
        lastMAC = framed.mac
        defer { nextSequence += 1 }
        return (nextSequence, handle)
    }
}
