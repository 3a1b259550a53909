// SPDX-License-Identifier: Apache-2.0
// The CoreFoundation and LocalAuthentication names popular keychain wrappers use compile and behave as on Apple
// platforms.

import Foundation
import LocalAuthentication
import Security
import Testing

@Suite("Names keychain wrappers use")
struct WrapperNamesTests {
    /// A wrapper's error type built from a CFError, the way wrappers convert Security's errors.
    struct WrappedError: Error {
        let domain: String
        let code: Int
        let userInfoKeys: [String]

        init(_ error: CFError) {
            domain = CFErrorGetDomain(error) as String
            code = CFErrorGetCode(error)
            userInfoKeys = ((CFErrorCopyUserInfo(error) as? [String: Any]) ?? [:]).keys.sorted()
        }
    }

    @Test("CFErrorGetDomain, CFErrorGetCode and CFErrorCopyUserInfo read a Security error")
    func cfErrorFunctions() throws {
        var unmanaged: Unmanaged<CFError>?
        let control = SecAccessControlCreateWithFlags(kCFAllocatorDefault, "not an accessibility" as CFString,
                                                      .userPresence, &unmanaged)
        #expect(control == nil)
        let error = try #require(unmanaged?.takeRetainedValue())
        let wrapped = WrappedError(error)
        #expect(wrapped.domain == kCFErrorDomainOSStatus as String)
        #expect(wrapped.code == Int(errSecParam))
        #expect(wrapped.userInfoKeys.isEmpty)
        let flags: CFOptionFlags = 0
        #expect(flags == 0)
    }

    @Test("kCFBundleIdentifierKey is the Info.plist key wrappers read their default service from")
    func bundleIdentifierKey() {
        #expect(kCFBundleIdentifierKey as String == "CFBundleIdentifier")
        let info: [String: Any] = ["CFBundleIdentifier": "com.example.app"]
        #expect(info[kCFBundleIdentifierKey as String] as? String == "com.example.app")
    }

    @Test("LAContext is an NSObject: equal to itself only, hashable, usable in [String: AnyHashable]")
    func contextIsAnObject() {
        let context = LAContext(), other = LAContext()
        #expect(context == context && context != other)
        #expect(Set([context, other, context]).count == 2)
        let options: [String: AnyHashable] = [kSecUseAuthenticationContext as String: context]
        #expect(options[kSecUseAuthenticationContext as String] == AnyHashable(context))
        #expect((context as NSObject).isEqual(context))
    }

    @Test("SecAccessControl is Hashable: the same protection and flags are equal")
    func accessControlHashable() throws {
        let one = try #require(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, .userPresence, nil))
        let same = try #require(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, .userPresence, nil))
        let other = try #require(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, .biometryAny, nil))
        #expect(one == same && one != other)
        #expect(Set([one, same, other]).count == 2)
    }
}
