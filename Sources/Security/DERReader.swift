// SPDX-License-Identifier: Apache-2.0
// A minimal DER reader: enough of X.690 to walk an X.509 certificate's fixed structure.

import Foundation

/// One DER element: its tag byte, its content, and its complete encoding (tag, length and content).
struct DERElement {
    let tag: UInt8
    let content: ArraySlice<UInt8>
    let encoding: ArraySlice<UInt8>

    static let sequence: UInt8 = 0x30
    static let set: UInt8 = 0x31
    static let integer: UInt8 = 0x02
    static let bitString: UInt8 = 0x03
    static let octetString: UInt8 = 0x04
    static let objectIdentifier: UInt8 = 0x06

    /// Context-specific constructed tag `[n]`.
    static func context(_ number: UInt8) -> UInt8 { 0xa0 | number }

    /// The elements inside a constructed element.
    func children() throws(DERError) -> [DERElement] {
        var reader = DERReader(content)
        var elements: [DERElement] = []
        while !reader.isAtEnd { elements.append(try reader.next()) }
        return elements
    }
}

struct DERError: Error {}

/// Reads DER elements one after another from a byte slice. Only definite lengths and single-byte tags occur in
/// certificates, so those are all it accepts; anything else is an error, never a guess.
struct DERReader {
    private var bytes: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

    var isAtEnd: Bool { bytes.isEmpty }

    /// The next element.
    mutating func next() throws(DERError) -> DERElement {
        let whole = bytes
        guard let tag = bytes.popFirst(), tag & 0x1f != 0x1f, let first = bytes.popFirst() else { throw DERError() }
        var length = 0
        if first < 0x80 {
            length = Int(first)
        } else {
            let count = Int(first & 0x7f)
            guard count >= 1, count <= 4, bytes.count >= count else { throw DERError() }
            for _ in 0..<count { length = length << 8 | Int(bytes.removeFirst()) }
        }
        guard length <= bytes.count else { throw DERError() }
        let content = bytes.prefix(length)
        bytes = bytes.dropFirst(length)
        return DERElement(tag: tag, content: content, encoding: whole[whole.startIndex..<content.endIndex])
    }

    /// The next element, which must carry `tag`.
    mutating func next(_ tag: UInt8) throws(DERError) -> DERElement {
        let element = try next()
        guard element.tag == tag else { throw DERError() }
        return element
    }
}
