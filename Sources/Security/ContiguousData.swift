// SPDX-License-Identifier: Apache-2.0
// The NSData the keychain hands out: bytes that Swift's Data takes in one copy.

import Foundation

/// An immutable NSData over one buffer of its own, declaring `ContiguousBytes`: every `CFData` a result, a key or a
/// certificate gives the caller is one of these.
///
/// Callers turn results back into `Data` (`result as? [Data]`, `dictionary[kSecValueData] as? Data`). On Linux that
/// conversion is `Data(nsData)`, which copies a plain NSData one byte at a time through its `Sequence` iterator
/// unless the object is `ContiguousBytes`; for a search of many items it was the largest cost on the caller's side.
/// With this class the conversion is one `memcpy`. To the caller it is an NSData like any other (`is NSData`,
/// `isEqual`, hashing, copying, archiving as NSData).
final class ContiguousData: NSData, ContiguousBytes {
    private let start: UnsafeMutableRawPointer
    private let count: Int

    /// A copy of `bytes`.
    init(_ bytes: some ContiguousBytes) {
        let (start, count) = bytes.withUnsafeBytes { source in
            // One byte at least, so an empty value still has an address of its own to hand out as `bytes`.
            let start = UnsafeMutableRawPointer.allocate(byteCount: Swift.max(source.count, 1), alignment: 16)
            if let base = source.baseAddress, source.count > 0 {
                start.copyMemory(from: base, byteCount: source.count)
            }
            return (start, source.count)
        }
        self.start = start
        self.count = count
        super.init()
    }

    /// Never used: archives name NSData (see ``classForCoder``), so decoding makes a plain NSData.
    required init?(coder: NSCoder) { nil }

    deinit {
        // Results are often secrets: leave nothing of them in the freed heap.
        explicit_bzero(start, Swift.max(count, 1))
        start.deallocate()
    }

    override var length: Int { count }
    override var bytes: UnsafeRawPointer { UnsafeRawPointer(start) }
    override var classForCoder: AnyClass { NSData.self }

    func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: start, count: count))
    }
}
