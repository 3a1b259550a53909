// SPDX-License-Identifier: Apache-2.0
// doctor's checks of synchronized collections: each one's folder, and the other devices' journals cofferd set aside.

import Foundation
import SecretStore

extension DoctorChecks {
    /// One finding per synchronized collection of the data directory `directory`, and an error per journal cofferd
    /// set aside (read from the data directory, so also while the collection is locked or cofferd is not running).
    static func synchronizedCollections(_ directory: String) -> [DoctorFinding] {
        var findings: [DoctorFinding] = []
        for synchronized in SyncInspection.synchronizedCollections(in: directory) {
            let keychain = synchronized.keychain
            guard synchronized.problem == nil || !synchronized.collection.isEmpty else {
                findings.append(.error("sync", "keychain \(keychain): \(synchronized.problem ?? "")",
                    fix: "run `coffer sync leave --collection \(keychain)`; its items stay, and `coffer sync join "
                        + "FOLDER` synchronizes them again as a new device"))
                continue
            }
            let place = "\(synchronized.folder)/\(synchronized.collection)"
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: place, isDirectory: &isDirectory), isDirectory.boolValue {
                findings.append(.ok("sync", "keychain \(keychain) is synchronized through \(synchronized.folder) "
                    + "(collection \(synchronized.collection), device \(synchronized.device))"))
            } else {
                findings.append(.error("sync", "keychain \(keychain) is synchronized through \(place), which is "
                    + "missing: its changes are refused until it is back",
                    fix: "mount or restore the folder, name where the sync engine keeps it now with `sync-folder` in "
                        + "cofferd.conf, or stop synchronizing with `coffer sync leave --collection \(keychain)`"))
            }
            if let problem = synchronized.problem {
                findings.append(.warning("sync", "keychain \(keychain): \(problem); cofferd merges the other "
                    + "journals again from their start", fix: "nothing, unless it stays; then see cofferd's log"))
            }
            for journal in synchronized.setAside {
                findings.append(.error("sync", "keychain \(keychain): the journal of device \(journal.device) "
                    + "(\(journal.journal)) is set aside: \(journal.reason); nothing more of it is merged here, and "
                    + "what was merged before stays",
                    fix: "`coffer sync status \(synchronized.folder) --collection \(synchronized.collection) --verify` "
                        + "names the device. If that machine was restored from a backup or cloned, run `coffer sync "
                        + "leave` and `coffer sync join \(synchronized.folder)` there (a new device id); if someone "
                        + "altered the file, put back the copy that machine wrote. Then leave and join here too, "
                        + "so this machine follows the journals afresh"))
            }
        }
        return findings
    }
}
