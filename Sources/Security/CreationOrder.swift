// SPDX-License-Identifier: Apache-2.0
// The order search results come back in: creation order, as the data-protection keychain returns its rows.

import DBusWire
import SecretServiceClient

extension StoredItem {
    /// Whether `self` was created before `other`.
    ///
    /// The Secret Service `Created` property has whole seconds, so items written within one second tie on it.
    /// Providers name items by a counter (cofferd and gnome-keyring use the collection's next number), so within
    /// a second the numeric last path element decides: item 99 before item 100, which the path as a string gets
    /// wrong. Paths whose last element is not a number (random ids) fall back to the string.
    func createdBefore(_ other: StoredItem) -> Bool { orderKey < other.orderKey }

    /// `items` in creation order (``createdBefore(_:)``), each item's key worked out once rather than at every
    /// comparison.
    static func inCreationOrder(_ items: [StoredItem]) -> [StoredItem] {
        items.map { (item: $0, key: $0.orderKey) }.sorted { $0.key < $1.key }.map(\.item)
    }

    private var orderKey: OrderKey {
        OrderKey(created: properties.created, serial: Self.serialNumber(path.rawValue), path: path.rawValue)
    }

    /// What creation order compares: `Created`, then the path's number, then the path as a string.
    private struct OrderKey {
        let created: UInt64
        let serial: SerialNumber?
        let path: String

        static func < (lhs: Self, rhs: Self) -> Bool {
            if lhs.created != rhs.created { return lhs.created < rhs.created }
            if let own = lhs.serial, let others = rhs.serial, own != others { return own < others }
            return lhs.path < rhs.path
        }
    }

    /// The last path element as a number, when it is one; compared as digits so no size limit applies. Read as
    /// UTF-8 bytes: a sort takes it for every item, and characters would cost a grapheme break each.
    private static func serialNumber(_ path: String) -> SerialNumber? {
        let bytes = path.utf8
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return nil }
        let last = bytes[bytes.index(after: slash)...]
        guard !last.isEmpty, last.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            return nil
        }
        return SerialNumber(digits: Array(last.drop { $0 == UInt8(ascii: "0") }))
    }

    /// Decimal digits (ASCII) without leading zeros, ordered by value: fewer digits first, then digit by digit.
    private struct SerialNumber: Comparable {
        let digits: [UInt8]
        static func < (lhs: Self, rhs: Self) -> Bool {
            lhs.digits.count != rhs.digits.count
                ? lhs.digits.count < rhs.digits.count : lhs.digits.lexicographicallyPrecedes(rhs.digits)
        }
    }
}
