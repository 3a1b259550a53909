// SPDX-License-Identifier: Apache-2.0
// Test helper: adds generic passwords `race-0…` in step with other processes, for the Keychain cross-process test.

import Foundation
import Keychain  // the compatibility module: code written for earlier releases keeps building

// Usage: keychain-race-helper <bus address> <lock directory> <access group> <count>
// Connects, prints "ready", waits for a line on standard input (the test's starting signal, sent once every helper
// is ready), then adds service "race", accounts race-0 … race-<count-1>, printing "<account> <status>" for each.
// An empty lock directory means the library's default.
let arguments = CommandLine.arguments
guard arguments.count == 5, let count = Int(arguments[4]) else {
    FileHandle.standardError.write(Data("usage: keychain-race-helper <bus> <lock dir> <group> <count>\n".utf8))
    exit(2)
}
KeychainConfiguration.processDefault = KeychainConfiguration(
    busAddress: arguments[1], accessGroup: arguments[3], lockDirectory: arguments[2].isEmpty ? nil : arguments[2])

// Open the connection before the start, so the adds race each other rather than the connection setup.
let probe: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "race-probe"]
let probeStatus = SecItemCopyMatching(probe as CFDictionary, nil)
guard probeStatus == errSecItemNotFound else {
    FileHandle.standardError.write(Data("probe failed: \(probeStatus)\n".utf8))
    exit(1)
}
FileHandle.standardOutput.write(Data("ready\n".utf8))
_ = readLine()

var lines: [String] = []
for index in 0..<count {
    let add: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "race",
                              kSecAttrAccount as String: "race-\(index)",
                              kSecValueData as String: Data("\(getpid())".utf8)]
    lines.append("race-\(index) \(SecItemAdd(add as CFDictionary, nil))")
}
FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
