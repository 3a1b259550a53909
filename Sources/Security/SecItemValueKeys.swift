// SPDX-License-Identifier: Apache-2.0
// The value constants (accessibility, protocol, authentication type, key class) and the kSecMatch…, kSecReturn…, kSecValue… and kSecUse… keys.

public import Foundation

// Raw values are Apple's (SecItemConstants.c), so dictionaries built or persisted on Apple platforms mean the same
// here. The NSString constants are immutable; `nonisolated(unsafe)` only says a non-Sendable Foundation class is
// safe to share.

// MARK: - Accessibility values

/// Accessible while the device (here: the collection) is unlocked; the default.
nonisolated(unsafe) public let kSecAttrAccessibleWhenUnlocked: CFString = "ak"
/// Accessible after the first unlock.
nonisolated(unsafe) public let kSecAttrAccessibleAfterFirstUnlock: CFString = "ck"
/// Always accessible (deprecated by Apple).
nonisolated(unsafe) public let kSecAttrAccessibleAlways: CFString = "dk"
/// As WhenUnlocked, never migrated to another device.
nonisolated(unsafe) public let kSecAttrAccessibleWhenUnlockedThisDeviceOnly: CFString = "aku"
/// As AfterFirstUnlock, never migrated to another device.
nonisolated(unsafe) public let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString = "cku"
/// As Always, never migrated (deprecated by Apple).
nonisolated(unsafe) public let kSecAttrAccessibleAlwaysThisDeviceOnly: CFString = "dku"
/// Only while a passcode is set: cannot be honoured, `errSecUnimplemented`.
nonisolated(unsafe) public let kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly: CFString = "akpu"

// MARK: - Protocol values

/// The FTP protocol.
nonisolated(unsafe) public let kSecAttrProtocolFTP: CFString = "ftp "
/// The FTPAccount protocol.
nonisolated(unsafe) public let kSecAttrProtocolFTPAccount: CFString = "ftpa"
/// The HTTP protocol.
nonisolated(unsafe) public let kSecAttrProtocolHTTP: CFString = "http"
/// The IRC protocol.
nonisolated(unsafe) public let kSecAttrProtocolIRC: CFString = "irc "
/// The NNTP protocol.
nonisolated(unsafe) public let kSecAttrProtocolNNTP: CFString = "nntp"
/// The POP3 protocol.
nonisolated(unsafe) public let kSecAttrProtocolPOP3: CFString = "pop3"
/// The SMTP protocol.
nonisolated(unsafe) public let kSecAttrProtocolSMTP: CFString = "smtp"
/// The SOCKS protocol.
nonisolated(unsafe) public let kSecAttrProtocolSOCKS: CFString = "sox "
/// The IMAP protocol.
nonisolated(unsafe) public let kSecAttrProtocolIMAP: CFString = "imap"
/// The LDAP protocol.
nonisolated(unsafe) public let kSecAttrProtocolLDAP: CFString = "ldap"
/// The AppleTalk protocol.
nonisolated(unsafe) public let kSecAttrProtocolAppleTalk: CFString = "atlk"
/// The AFP protocol.
nonisolated(unsafe) public let kSecAttrProtocolAFP: CFString = "afp "
/// The Telnet protocol.
nonisolated(unsafe) public let kSecAttrProtocolTelnet: CFString = "teln"
/// The SSH protocol.
nonisolated(unsafe) public let kSecAttrProtocolSSH: CFString = "ssh "
/// The FTPS protocol.
nonisolated(unsafe) public let kSecAttrProtocolFTPS: CFString = "ftps"
/// The HTTPS protocol.
nonisolated(unsafe) public let kSecAttrProtocolHTTPS: CFString = "htps"
/// The HTTPProxy protocol.
nonisolated(unsafe) public let kSecAttrProtocolHTTPProxy: CFString = "htpx"
/// The HTTPSProxy protocol.
nonisolated(unsafe) public let kSecAttrProtocolHTTPSProxy: CFString = "htsx"
/// The FTPProxy protocol.
nonisolated(unsafe) public let kSecAttrProtocolFTPProxy: CFString = "ftpx"
/// The SMB protocol.
nonisolated(unsafe) public let kSecAttrProtocolSMB: CFString = "smb "
/// The RTSP protocol.
nonisolated(unsafe) public let kSecAttrProtocolRTSP: CFString = "rtsp"
/// The RTSPProxy protocol.
nonisolated(unsafe) public let kSecAttrProtocolRTSPProxy: CFString = "rtsx"
/// The DAAP protocol.
nonisolated(unsafe) public let kSecAttrProtocolDAAP: CFString = "daap"
/// The EPPC protocol.
nonisolated(unsafe) public let kSecAttrProtocolEPPC: CFString = "eppc"
/// The IPP protocol.
nonisolated(unsafe) public let kSecAttrProtocolIPP: CFString = "ipp "
/// The NNTPS protocol.
nonisolated(unsafe) public let kSecAttrProtocolNNTPS: CFString = "ntps"
/// The LDAPS protocol.
nonisolated(unsafe) public let kSecAttrProtocolLDAPS: CFString = "ldps"
/// The TelnetS protocol.
nonisolated(unsafe) public let kSecAttrProtocolTelnetS: CFString = "tels"
/// The IMAPS protocol.
nonisolated(unsafe) public let kSecAttrProtocolIMAPS: CFString = "imps"
/// The IRCS protocol.
nonisolated(unsafe) public let kSecAttrProtocolIRCS: CFString = "ircs"
/// The POP3S protocol.
nonisolated(unsafe) public let kSecAttrProtocolPOP3S: CFString = "pops"

// MARK: - Authentication-type values

/// NTLM authentication.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeNTLM: CFString = "ntlm"
/// MSN authentication.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeMSN: CFString = "msna"
/// DPA authentication.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeDPA: CFString = "dpaa"
/// RPA authentication.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeRPA: CFString = "rpaa"
/// HTTPBasic authentication.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeHTTPBasic: CFString = "http"
/// HTTPDigest authentication.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeHTTPDigest: CFString = "httd"
/// HTMLForm authentication.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeHTMLForm: CFString = "form"
/// Default authentication.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeDefault: CFString = "dflt"

// MARK: - Key and synchronization values

/// A public key.
nonisolated(unsafe) public let kSecAttrKeyClassPublic: CFString = "0"
/// A private key.
nonisolated(unsafe) public let kSecAttrKeyClassPrivate: CFString = "1"
/// A symmetric key.
nonisolated(unsafe) public let kSecAttrKeyClassSymmetric: CFString = "2"
/// RSA keys.
nonisolated(unsafe) public let kSecAttrKeyTypeRSA: CFString = "42"
/// Elliptic-curve keys (older name).
nonisolated(unsafe) public let kSecAttrKeyTypeEC: CFString = "73"
/// Elliptic-curve keys on a prime curve.
nonisolated(unsafe) public let kSecAttrKeyTypeECSECPrimeRandom: CFString = "73"
/// In a query, matches synchronizable and non-synchronizable items alike.
nonisolated(unsafe) public let kSecAttrSynchronizableAny: CFString = "syna"

// MARK: - Search keys

/// Certificates only: a trust policy to match.
nonisolated(unsafe) public let kSecMatchPolicy: CFString = "m_Policy"
/// Restricts the search to given items.
nonisolated(unsafe) public let kSecMatchItemList: CFString = "m_ItemList"
/// macOS: the keychains to search.
nonisolated(unsafe) public let kSecMatchSearchList: CFString = "m_SearchList"
/// Certificates only: acceptable issuers.
nonisolated(unsafe) public let kSecMatchIssuers: CFString = "m_Issuers"
/// Certificates only: an e-mail address to match.
nonisolated(unsafe) public let kSecMatchEmailAddressIfPresent: CFString = "m_EmailAddressIfPresent"
/// Certificates only: subject substring.
nonisolated(unsafe) public let kSecMatchSubjectContains: CFString = "m_SubjectContains"
/// Certificates only: subject prefix.
nonisolated(unsafe) public let kSecMatchSubjectStartsWith: CFString = "m_SubjectStartsWith"
/// Certificates only: subject suffix.
nonisolated(unsafe) public let kSecMatchSubjectEndsWith: CFString = "m_SubjectEndsWith"
/// Certificates only: whole subject.
nonisolated(unsafe) public let kSecMatchSubjectWholeString: CFString = "m_SubjectWholeString"
/// Compare string attributes case-insensitively (done client-side).
nonisolated(unsafe) public let kSecMatchCaseInsensitive: CFString = "m_CaseInsensitive"
/// macOS: ignore diacritics.
nonisolated(unsafe) public let kSecMatchDiacriticInsensitive: CFString = "m_DiacriticInsensitive"
/// macOS: ignore character width.
nonisolated(unsafe) public let kSecMatchWidthInsensitive: CFString = "m_WidthInsensitive"
/// Certificates only: trusted certificates.
nonisolated(unsafe) public let kSecMatchTrustedOnly: CFString = "m_TrustedOnly"
/// Certificates only: valid on a date.
nonisolated(unsafe) public let kSecMatchValidOnDate: CFString = "m_ValidOnDate"
/// How many results: `kSecMatchLimitOne` (the default), `kSecMatchLimitAll`, or a number.
nonisolated(unsafe) public let kSecMatchLimit: CFString = "m_Limit"
/// At most one result, returned bare.
nonisolated(unsafe) public let kSecMatchLimitOne: CFString = "m_LimitOne"
/// All results, returned as an array.
nonisolated(unsafe) public let kSecMatchLimitAll: CFString = "m_LimitAll"

// MARK: - Return keys

/// Return the secret as Data.
nonisolated(unsafe) public let kSecReturnData: CFString = "r_Data"
/// Return the attributes as a dictionary.
nonisolated(unsafe) public let kSecReturnAttributes: CFString = "r_Attributes"
/// Return an item reference (ignored for password classes).
nonisolated(unsafe) public let kSecReturnRef: CFString = "r_Ref"
/// Return a persistent reference (Data) to the item.
nonisolated(unsafe) public let kSecReturnPersistentRef: CFString = "r_PersistentRef"

// MARK: - Value keys

/// The secret, as Data.
nonisolated(unsafe) public let kSecValueData: CFString = "v_Data"
/// An item reference object (not supported for password classes).
nonisolated(unsafe) public let kSecValueRef: CFString = "v_Ref"
/// A persistent reference (Data) identifying one item.
nonisolated(unsafe) public let kSecValuePersistentRef: CFString = "v_PersistentRef"

// MARK: - Use keys

/// Items to use (not allowed in searches).
nonisolated(unsafe) public let kSecUseItemList: CFString = "u_ItemList"
/// macOS: the keychain to use.
nonisolated(unsafe) public let kSecUseKeychain: CFString = "u_Keychain"
/// Text for an authentication prompt (deprecated by Apple).
nonisolated(unsafe) public let kSecUseOperationPrompt: CFString = "u_OpPrompt"
/// Deprecated: fail instead of prompting.
nonisolated(unsafe) public let kSecUseNoAuthenticationUI: CFString = "u_NoAuthUI"
/// Whether the operation may prompt: `…Allow`, `…Fail` or `…Skip`.
nonisolated(unsafe) public let kSecUseAuthenticationUI: CFString = "u_AuthUI"
/// Prompting is allowed (the default).
nonisolated(unsafe) public let kSecUseAuthenticationUIAllow: CFString = "u_AuthUIA"
/// Fail with `errSecInteractionNotAllowed` where a prompt would be needed.
nonisolated(unsafe) public let kSecUseAuthenticationUIFail: CFString = "u_AuthUIF"
/// Skip items that would need a prompt (searches only).
nonisolated(unsafe) public let kSecUseAuthenticationUISkip: CFString = "u_AuthUIS"
/// An authentication context (``LAContext``): one with `interactionNotAllowed` forbids prompts.
nonisolated(unsafe) public let kSecUseAuthenticationContext: CFString = "u_AuthCtx"
/// macOS: use the data-protection keychain; accepted and ignored.
nonisolated(unsafe) public let kSecUseDataProtectionKeychain: CFString = "nleg"
