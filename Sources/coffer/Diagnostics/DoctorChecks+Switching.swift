// SPDX-License-Identifier: Apache-2.0
// doctor's checks for what keeps cofferd from being the provider: competitors that win the name at login (the
// same survey `coffer takeover` acts on) and whether systemd --user can find cofferd's unit.

import Foundation

extension DoctorChecks {
    /// One finding per competitor: an error when it takes org.freedesktop.secrets at login, else a warning.
    static func competitors(_ directories: UserDirectories, cofferd: String) -> [DoctorFinding] {
        let found = CompetitorSurvey.run(directories, cofferd: cofferd)
        guard !found.isEmpty else {
            return [.ok("competitors", "nothing else starts a Secret Service provider for you (autostart, activation, "
                + "systemd units, KeePassXC, PAM)")]
        }
        return found.map { competitor in
            let fix = competitor.change == nil ? competitor.fix : "\(competitor.fix); or run `coffer takeover`"
            return competitor.winsAtLogin
                ? .error(competitor.kind.rawValue, competitor.explanation, fix: fix)
                : .warning(competitor.kind.rawValue, competitor.explanation, fix: fix)
        }
    }

    /// Directories `systemd --user` loads units from (systemd.unit(5), user unit search path), given the XDG
    /// directories; a unit anywhere else is never found.
    static func userUnitSearchPath(_ directories: UserDirectories) -> [String] {
        [directories.userUnits, directories.dataHome + "/systemd/user"] + directories.systemUnits
    }

    /// Where cofferd.service is, relative to the installed prefix of `cofferd` (its directory's parent) and to
    /// systemd's search path.
    static func unitLocation(_ directories: UserDirectories, cofferd: String) -> [DoctorFinding] {
        let name = "cofferd.service"
        let searched = userUnitSearchPath(directories)
        if let found = searched.map({ $0 + "/" + name }).first(where: FileManager.default.fileExists(atPath:)) {
            return [.ok("unit", "\(found) (systemd --user finds it)")]
        }
        let prefix = ((cofferd as NSString).deletingLastPathComponent as NSString).deletingLastPathComponent
        let installed = [prefix + "/lib/systemd/user", prefix + "/share/systemd/user"].map { $0 + "/" + name }
        if let stray = installed.first(where: FileManager.default.fileExists(atPath:)) {
            return [.error("unit", "\(stray) is where the install put cofferd's unit, but systemd --user never looks "
                + "there, so an activation file naming SystemdService=\(name) cannot start cofferd",
                fix: "mkdir -p \(directories.userUnits) && mv \(stray) \(directories.userUnits)/ && "
                    + "systemctl --user daemon-reload")]
        }
        return [.warning("unit", "no \(name) where systemd --user looks; cofferd starts only by D-Bus activation "
            + "or as a plain process", fix: "reinstall Coffer, or put its cofferd.service into "
            + "\(directories.userUnits)/")]
    }
}
