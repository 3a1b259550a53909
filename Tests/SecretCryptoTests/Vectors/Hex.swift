// SPDX-License-Identifier: Apache-2.0
// Hex decoding and encoding for known-answer vectors.

extension Array where Element == UInt8 {
    /// Decodes a hex string; whitespace is ignored. Traps on malformed input (vectors are constants).
    init(hex: String) {
        let digits = hex.unicodeScalars.filter { !$0.properties.isWhitespace }
        precondition(digits.count % 2 == 0, "odd number of hex digits")
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var high: UInt8?
        for scalar in digits {
            guard let nibble = UInt8(String(scalar), radix: 16) else { preconditionFailure("bad hex digit \(scalar)") }
            if let pending = high {
                bytes.append(pending << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        self = bytes
    }

    /// Lower-case hex encoding.
    var hex: String {
        map { byte in
            let text = String(byte, radix: 16)
            return byte < 16 ? "0" + text : text
        }.joined()
    }
}
