// SPDX-License-Identifier: Apache-2.0
// Byte comparisons whose running time does not depend on the bytes compared.

/// Constant-time helpers.
public enum ConstantTime {
    /// `true` when both buffers have equal length and equal bytes; the time depends only on the length.
    /// - Parameters:
    ///   - lhs: The first buffer.
    ///   - rhs: The second buffer.
    static func equals(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in 0..<lhs.count {
            difference |= lhs[index] ^ rhs[index]
        }
        return difference == 0
    }

    /// `true` when both arrays hold the same bytes; for MACs and tags, where an early exit would leak how many
    /// leading bytes an attacker guessed right.
    public static func equal(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        lhs.withUnsafeBytes { a in rhs.withUnsafeBytes { b in equals(a, b) } }
    }
}
