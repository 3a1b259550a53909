// SPDX-License-Identifier: Apache-2.0
// coffer doctor on the PAM stack: without pam_coffer.so nothing unlocks login at login; each missing part, and a
// line naming a module that is not installed, is a warning with its fix.

import Foundation
import SecretServiceTestSupport
import Testing

@Suite("coffer doctor: pam_coffer in the PAM stack")
struct DoctorPAMStackTests {
    @Test func eachMissingPartIsNamedUntilTheStackIsComplete() async throws {
        try await TestBus.withPrivateBus { bus in
            let coffer = CofferCLI(bus: bus)
            let system = bus.directory.appendingPathComponent("system").path
            let pam = system + "/etc/pam.d"
            let modules = system + "/lib/x86_64-linux-gnu/security"
            try FileManager.default.createDirectory(atPath: pam, withIntermediateDirectories: true)
            let doctor = ["doctor", "--system-root", system]
            let environment = ["XDG_CONFIG_DIRS": system, "XDG_DATA_DIRS": system]
            func write(_ name: String, _ text: String) throws {
                try text.write(toFile: pam + "/" + name, atomically: true, encoding: .utf8)
            }

            try write("common-auth", "auth [success=1 default=ignore] pam_unix.so nullok\nauth requisite pam_deny.so\n")
            let none = try await coffer.run(doctor, environment: environment).text
            #expect(none.contains("warning pam: no PAM stack in \(pam) loads pam_coffer.so: nothing unlocks login "
                + "when you log in"), "\(none)")

            try write("common-auth", "auth optional pam_coffer.so\n# session optional pam_coffer.so\n")
            let authOnly = try await coffer.run(doctor, environment: environment).text
            #expect(authOnly.contains("warning pam: no session line loads pam_coffer.so"), "\(authOnly)")
            #expect(authOnly.contains("warning pam: no password line loads pam_coffer.so"), "\(authOnly)")
            #expect(authOnly.contains("\(pam)/common-auth line 1 loads pam_coffer.so, which is not installed"),
                    "\(authOnly)")

            try FileManager.default.createDirectory(atPath: modules, withIntermediateDirectories: true)
            try Data().write(to: URL(fileURLWithPath: modules + "/pam_coffer.so"))
            try write("common-session", "-session optional pam_coffer.so\n")
            try write("common-password", "password optional pam_coffer.so\n")
            let complete = try await coffer.run(doctor, environment: environment).text
            #expect(complete.contains("ok      pam: pam_coffer.so unlocks login at login and follows password changes"),
                    "\(complete)")
            #expect(!complete.contains("warning pam"), "\(complete)")
        }
    }
}
