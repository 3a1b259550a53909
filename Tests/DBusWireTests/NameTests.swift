// SPDX-License-Identifier: Apache-2.0
// Validation of object paths and bus, interface, member and error names.

import DBusWire
import Testing

@Suite("Names and paths")
struct NameTests {
    @Test("valid object paths", arguments: ["/", "/a", "/org/freedesktop/secrets", "/a_b/C9/_"])
    func validPaths(_ text: String) {
        #expect(ObjectPath(text)?.rawValue == text)
    }

    @Test("invalid object paths", arguments: ["", "a", "//", "/a/", "/a//b", "/a-b", "/a.b", "/é"])
    func invalidPaths(_ text: String) {
        #expect(ObjectPath(text) == nil)
    }

    @Test("path elements and ancestry")
    func elements() {
        let path: ObjectPath = "/org/freedesktop/secrets/collection/login"
        #expect(path.elements == ["org", "freedesktop", "secrets", "collection", "login"])
        #expect(path.isDescendant(of: "/org/freedesktop/secrets"))
        #expect(!ObjectPath(unchecked: "/org/freedesktop/secretsx").isDescendant(of: "/org/freedesktop/secrets"))
        #expect(ObjectPath.root.appending("a") == "/a")
    }

    @Test("interface and error names")
    func dottedNames() {
        #expect(InterfaceName("org.freedesktop.Secret.Service" as String) != nil)
        #expect(InterfaceName("org" as String) == nil)
        #expect(InterfaceName("org..x" as String) == nil)
        #expect(InterfaceName("org.9x" as String) == nil)
        #expect(InterfaceName("org.x-y" as String) == nil)
        #expect(ErrorName("org.freedesktop.Secret.Error.IsLocked" as String) != nil)
    }

    @Test("member names")
    func memberNames() {
        #expect(MemberName("OpenSession" as String) != nil)
        #expect(MemberName("9Open" as String) == nil)
        #expect(MemberName("Open.Session" as String) == nil)
        #expect(MemberName("" as String) == nil)
    }

    @Test("bus names, unique and well-known")
    func busNames() {
        #expect(BusName(":1.42" as String)?.isUnique == true)
        #expect(BusName("org.freedesktop.secrets" as String)?.isUnique == false)
        #expect(BusName("org.free-desktop.x" as String) != nil)
        #expect(BusName("secrets" as String) == nil)
        #expect(BusName(":1" as String) == nil)
    }
}
