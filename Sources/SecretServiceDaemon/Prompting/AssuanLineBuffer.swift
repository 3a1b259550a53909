// SPDX-License-Identifier: Apache-2.0
// A fixed receive buffer that splits Assuan lines and wipes every byte it is done with.

#if canImport(Glibc)
import Glibc
#endif
import SecretCrypto

/// The receive buffer of an Assuan connection's reader thread.
///
/// Data lines may carry a password, so the buffer is one fixed `SecretBytes` block (never a growing `[UInt8]`
/// that would leave stale copies behind on reallocation), and consumed bytes are wiped as soon as they are handed
/// on; `SecretBytes` wipes the rest when the buffer goes away.
struct AssuanLineBuffer: ~Copyable {
    private let storage: SecretBytes
    private var filled = 0

    /// Allocates the buffer.
    /// - Parameter capacity: The longest line accepted, plus its LF. Assuan allows 1000 bytes.
    /// - Throws: `secureMemoryExhausted` when there is no secure memory for it.
    init(capacity: Int) throws(CryptoError) {
        storage = try SecretBytes(count: capacity)
    }

    /// Whether the buffer holds an unfinished line that fills it completely (a line longer than allowed).
    var isFull: Bool { filled == storage.count }

    /// Reads once from `descriptor` into the free space.
    /// - Returns: What `read(2)` returned: the byte count, 0 at end of file, or -1 with `errno` set.
    mutating func read(from descriptor: Int32) -> Int {
        let filled = filled
        let count = storage.withUnsafeMutableBytes { bytes -> Int in
            guard let base = bytes.baseAddress, filled < bytes.count else { return -1 }
            return Glibc.read(descriptor, base + filled, bytes.count - filled)
        }
        if count > 0 { self.filled += count }
        return count
    }

    /// Hands each complete line (without its LF) to `body`, then moves the unfinished rest to the front and wipes
    /// the bytes that are no longer in use.
    /// - Parameter body: Called with a line whose memory is valid only during the call; returns `false` to stop.
    /// - Returns: `false` when `body` asked to stop.
    mutating func drainLines(_ body: (UnsafeRawBufferPointer) -> Bool) -> Bool {
        let filled = filled
        let (remaining, keepGoing) = storage.withUnsafeMutableBytes { bytes -> (Int, Bool) in
            guard let base = bytes.baseAddress else { return (filled, true) }
            var start = 0, keepGoing = true
            while keepGoing, let newline = (start..<filled).first(where: { bytes[$0] == UInt8(ascii: "\n") }) {
                keepGoing = body(UnsafeRawBufferPointer(start: base + start, count: newline - start))
                start = newline + 1
            }
            guard start > 0 else { return (filled, keepGoing) }
            let remaining = filled - start
            if remaining > 0 { memmove(base, base + start, remaining) }
            return (remaining, keepGoing)
        }
        if remaining < filled { storage.wipe(remaining..<filled) }
        self.filled = remaining
        return keepGoing
    }
}
