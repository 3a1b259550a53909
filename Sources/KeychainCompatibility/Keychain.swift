// SPDX-License-Identifier: Apache-2.0
// `import Keychain` of earlier releases keeps building: the module re-exports CofferKeychain, and so Security.
// New code imports Security (Apple's names) and, for the Swift-style front, CofferKeychain; a module named
// Keychain beside a type named Keychain clashes with apps that define their own `Keychain` class.

@_exported public import CofferKeychain
