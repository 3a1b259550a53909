// SPDX-License-Identifier: Apache-2.0
// Search results come back in creation order, also for items created within the same second.

import DBusWire
import Foundation
@testable import Security
import SecretServiceClient
import Testing

@Suite("Result order")
struct ResultOrderTests {
    /// A generic password at `path`, created at `second`.
    func item(_ name: String, created second: UInt64) throws -> StoredItem {
        let attributes = [ItemSchema.versionAttribute: "1", ItemSchema.classAttribute: ItemClass.genericPassword.rawValue]
        let properties = ItemProperties(label: "", attributes: attributes, created: second, modified: second,
                                        locked: false)
        let path = try #require(ObjectPath("/org/freedesktop/secrets/collection/login/" + name))
        return try #require(StoredItem(path: path, properties: properties, expected: nil))
    }

    @Test("within one second, item 99 comes before item 100 (the path as a string says otherwise)")
    func numericWithinSecond() throws {
        let items = try [item("100", created: 7), item("99", created: 7), item("9", created: 7), item("101", created: 7)]
        let sorted = items.sorted { $0.createdBefore($1) }
        #expect(sorted.map { $0.path.rawValue.split(separator: "/").last.map(String.init) } == ["9", "99", "100", "101"])
    }

    @Test("the creation second decides first; non-numeric names fall back to the path")
    func secondsThenNames() throws {
        let items = try [item("5", created: 9), item("700", created: 3), item("b", created: 4), item("a", created: 4)]
        let sorted = items.sorted { $0.createdBefore($1) }
        #expect(sorted.map { $0.path.rawValue.split(separator: "/").last.map(String.init) } == ["700", "a", "b", "5"])
    }

    @Test("numbers with leading zeros or past 64 bits order by value; a sort of many items agrees with the comparison")
    func numberForms() throws {
        let names = ["123456789012345678901234", "008", "7", "99", "0", "100000000000000000000", "x7", "12"]
        let items = try names.map { try item($0, created: 5) }
        let expected = ["0", "7", "008", "12", "99", "100000000000000000000", "123456789012345678901234", "x7"]
        let last = { (items: [StoredItem]) in items.map { $0.path.rawValue.split(separator: "/").last.map(String.init) } }
        #expect(last(items.sorted { $0.createdBefore($1) }) == expected)
        #expect(last(StoredItem.inCreationOrder(items)) == expected)
    }
}
