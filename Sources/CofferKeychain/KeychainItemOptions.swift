// SPDX-License-Identifier: Apache-2.0
// The typed option values of the `Keychain` wrapper: protocols, authentication types and accessibility.

extension Keychain {
    /// The `kSecAttrProtocol` values, as Swift cases.
    public enum ProtocolType: String, Sendable, CaseIterable {
        case ftp = "ftp ", ftpAccount = "ftpa", http = "http", irc = "irc ", nntp = "nntp", pop3 = "pop3"
        case smtp = "smtp", socks = "sox ", imap = "imap", ldap = "ldap", appleTalk = "atlk", afp = "afp "
        case telnet = "teln", ssh = "ssh ", ftps = "ftps", https = "htps", httpProxy = "htpx"
        case httpsProxy = "htsx", ftpProxy = "ftpx", smb = "smb ", rtsp = "rtsp", rtspProxy = "rtsx"
        case daap = "daap", eppc = "eppc", ipp = "ipp ", nntps = "ntps", ldaps = "ldps", telnetS = "tels"
        case imaps = "imps", ircs = "ircs", pop3S = "pops"
    }

    /// The `kSecAttrAuthenticationType` values, as Swift cases.
    public enum AuthenticationType: String, Sendable, CaseIterable {
        case ntlm = "ntlm", msn = "msna", dpa = "dpaa", rpa = "rpaa", httpBasic = "http", httpDigest = "httd"
        case htmlForm = "form", `default` = "dflt"
    }

    /// The `kSecAttrAccessible` values. On Linux they all mean "while the collection is unlocked"; they are
    /// stored and matched. `whenPasscodeSetThisDeviceOnly` cannot be honoured and fails with `.unimplemented`.
    public enum Accessibility: String, Sendable, CaseIterable {
        case whenUnlocked = "ak", afterFirstUnlock = "ck", always = "dk", whenPasscodeSetThisDeviceOnly = "akpu"
        case whenUnlockedThisDeviceOnly = "aku", afterFirstUnlockThisDeviceOnly = "cku"
        case alwaysThisDeviceOnly = "dku"
    }

    /// The item class a `Keychain` value works on.
    public enum ItemClass: Sendable, Hashable {
        case genericPassword
        case internetPassword
    }
}
