// SPDX-License-Identifier: Apache-2.0
// The pages of code and read-only data that only start-up used, handed back once the daemon serves.

#if canImport(Glibc)
import Glibc
#endif

/// Start-up runs far more code than serving does (argument parsing, configuration, verifying and decoding the
/// collection files, libgcrypt's self-tests, the key derivation), and every page it ran stays mapped: the kernel maps
/// the page cache's neighbours of each page a fault needs (fault-around, 64 KiB), so a fresh daemon keeps most of
/// its binary resident although a lookup runs a small part of it. Once start-up is over, ``release()`` unmaps the
/// daemon's clean file-backed pages (`madvise(MADV_DONTNEED)`); the calls that follow map back, at a minor fault
/// from the page cache, only what they run. Nothing is lost: such a page holds exactly what the file holds.
///
/// A mapping qualifies only when dropping its pages cannot lose data: private, not writable, backed by a file,
/// holding no private copy of any page (`Anonymous: 0 kB`: the loader wrote relocations into the relocation
/// read-only segment before it made it read-only, and those pages exist nowhere else) and not locked.
enum StartupPages {
    /// A range of addresses, `start ..< end`.
    struct Mapping: Equatable {
        let start: UInt
        let end: UInt
    }

    /// Unmaps the clean file-backed pages of every qualifying mapping of this process.
    /// - Returns: the bytes of address space advised, or `nil` when `/proc/self/smaps` cannot be read.
    @discardableResult
    static func release() -> Int? {
        guard let smaps = readProcFile("/proc/self/smaps") else { return nil }
        var advised = 0
        for mapping in releasable(smaps: smaps) {
            let length = Int(mapping.end - mapping.start)
            // A mapping that changed since smaps was read (unmapped, locked) answers EINVAL or ENOMEM; nothing to do.
            if madvise(UnsafeMutableRawPointer(bitPattern: mapping.start), length, MADV_DONTNEED) == 0 {
                advised += length
            }
        }
        return advised
    }

    /// The mappings of an smaps text (`proc_pid_smaps(5)`) whose pages can be dropped without losing data.
    static func releasable(smaps: [UInt8]) -> [Mapping] {
        var result: [Mapping] = []
        var candidate: Mapping?
        var clean = false
        func finishMapping() {
            if let mapping = candidate, clean { result.append(mapping) }
            candidate = nil
        }
        for line in smaps.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            let fields = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: true)
            guard let first = fields.first else { continue }
            if first.last == UInt8(ascii: ":") {
                guard candidate != nil else { continue }
                switch String(decoding: first, as: UTF8.self) {
                case "Anonymous:":
                    clean = fields.count > 1 && fields[1].elementsEqual("0".utf8)
                case "VmFlags:":
                    if fields.dropFirst().contains(where: { $0.elementsEqual("lo".utf8) }) { clean = false }
                default:
                    break
                }
                continue
            }
            // A mapping's header: "start-end perms offset device inode [path]".
            finishMapping()
            guard fields.count >= 6, fields[1].count == 4, let range = addressRange(first) else { continue }
            let perms = Array(fields[1])
            let path = fields[5]
            guard perms[1] == UInt8(ascii: "-"), perms[3] == UInt8(ascii: "p"), path.first == UInt8(ascii: "/")
            else { continue }
            candidate = range
            clean = false
        }
        finishMapping()
        return result
    }

    private static func addressRange(_ field: ArraySlice<UInt8>) -> Mapping? {
        let bounds = field.split(separator: UInt8(ascii: "-"))
        guard bounds.count == 2, let start = UInt(String(decoding: bounds[0], as: UTF8.self), radix: 16),
              let end = UInt(String(decoding: bounds[1], as: UTF8.self), radix: 16), start < end
        else { return nil }
        return Mapping(start: start, end: end)
    }

    /// A file of /proc, read to its end (its size is not known beforehand).
    private static func readProcFile(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[..<count])
        }
    }
}
