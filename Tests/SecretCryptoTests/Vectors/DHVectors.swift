// SPDX-License-Identifier: Apache-2.0
// Diffie-Hellman known-answer vectors for RFC 2409 group 2, computed independently in Python: `pow(peer, x, p)` for
// the group arithmetic, `hmac`/`hashlib` for HKDF and the `cryptography` package for AES-128-CBC-PKCS7.

/// Vectors for the dh-ietf1024-sha256-aes128-cbc-pkcs7 exchange.
enum DHVectors {
    /// Fixed server private exponent (SHA-512 expansion of "coffer server exponent").
    static let exchangeServerExponent = [UInt8](hex: """
        f505f7093bad51d0f4a89c54e73080e601eafb0700d34f67f68ecb0a8e3274181afccd2b2b3f8333fe659add5749bf49
        995b0e9ad9e3489a5b00dddd1bbc034bdb09b49e6b3aa37dd8a8700d2b45537836237942446a2b0caa5484740f195eeb
        8ce77474a57cd5fe14a181b0af0eb1054d334b53483ec0382f2c722af0b96dc7
        """)
    /// Fixed client private exponent (SHA-512 expansion of "coffer client exponent").
    static let exchangeClientExponent = [UInt8](hex: """
        d54e94d40f8b1cf478a1c02f441967c4814e655bddea21f039fc3c918d2973aaff67b6c8ae2bd73cba0c5e12a9d59d8d
        994763cb12c01427a0ffc808a31018f8aa3d1bc3598e44c24314aca302a4d797c79738ca1c70134826fa9380392c3ead
        3343cb56a6ac3b94cc595d0bf6f138f5b805582e8bd724493b35f4f941bd7ccd
        """)
    /// g^serverExponent mod p, minimal unsigned big-endian.
    static let exchangeServerPublic = [UInt8](hex: """
        46f13c0747823fac4dc855058d559497954239ad05f32d8434a67e6965037ca2680150c973c61b4fc9542162d1b1d1ed
        a65569345df9b96d4ff00b9681e1ddb6002b1f3ebe6cab9a774c5822e908096bc989fd13778a09c82e4c27034ec13017
        5a2dd7d0288c6e70f031adf24aa2dccd6efdb03cef6c3a66439685a38bc30f83
        """)
    /// g^clientExponent mod p, minimal unsigned big-endian.
    static let exchangeClientPublic = [UInt8](hex: """
        5f14ee440c2a6a89c899c0b45853178a85faba813a851b3d947df1770065032cedb4a58335f0d0289d3ddbcf1f1e7e5a
        a599ef491760f1e3dcb230add4e238927c1a34f028f0196bdd9a755ca26986fdf8a7505d449a9ea7efa37f4cc23ec373
        66263d09a0bfca2492c9ecf2cbf7ab71a8beefaf1d2b439d47b91d82fc2017de
        """)
    /// Z = clientPublic^serverExponent mod p, left-padded to 128 bytes.
    static let exchangeSharedSecret = [UInt8](hex: """
        04c8713198f0eb9d0f628b292f2812062e38ab892c6f2154a8dc71dd8256efc195664bfb42ba73c857b2d1e854a996bd
        93430069e0dc04c5c0785d2514acaca36fea28553f53befba72c635c3ae375f4e621a9cf0cfa01e50952372632f44563
        99bce13cc585de37613cb0cbb03fb3b5cedb7b72ec1bb410c2a47dab4db5ae1f
        """)
    /// HKDF-SHA256(ikm: Z, salt: empty, info: empty, L: 16).
    static let exchangeAESKey = [UInt8](hex: "cea9eb12fb50f73954524e28ecd8b04e")
    /// Fixed IV for the session-cipher vector.
    static let exchangeIV = [UInt8](hex: "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf")
    /// "correct horse battery staple".
    static let exchangePlaintext = [UInt8](hex: "636f727265637420686f727365206261747465727920737461706c65")
    /// AES-128-CBC-PKCS7(exchangeAESKey, exchangeIV, exchangePlaintext).
    static let exchangeCiphertext = [UInt8](hex: "5625f0f279e55b32d33b61c7dde675cc922039b8f3d97f784358ce672517f746")
    /// AES-128-CBC-PKCS7(exchangeAESKey, exchangeIV, empty): one pad block.
    static let exchangeEmptyCiphertext = [UInt8](hex: "2455eca9ed59340ad342418a1122a37d")
    /// An exponent found by search so that Z below has two leading zero bytes.
    static let leadingZeroExponent = [UInt8](hex: """
        f9e92f7df7a5d8f853d95c83c44d03a48b13f549d5ffc2734b5a57786f4e45debc227d8b1ea6b6cd4c576a980795d6cd
        e18c48700a51f10418333d22b59713bb7bc28276d128ad13ee735bbcb94332c1871c2f124c213eb99b8a0ba03527e797
        eb4e8fa7a917af786664587043fad3f2bf5456bce6953b639d8cc501f6439fd4
        """)
    /// The peer key for the leading-zero vector (= exchangeClientPublic).
    static let leadingZeroPeer = [UInt8](hex: """
        5f14ee440c2a6a89c899c0b45853178a85faba813a851b3d947df1770065032cedb4a58335f0d0289d3ddbcf1f1e7e5a
        a599ef491760f1e3dcb230add4e238927c1a34f028f0196bdd9a755ca26986fdf8a7505d449a9ea7efa37f4cc23ec373
        66263d09a0bfca2492c9ecf2cbf7ab71a8beefaf1d2b439d47b91d82fc2017de
        """)
    /// Z with two leading zero bytes, padded to 128 bytes.
    static let leadingZeroSharedSecret = [UInt8](hex: """
        0000840f8405140680f5154e8a31bd84cb3f948414ad29c0733cc26039b8cd3766c18dab47f23e241f315ff1e87745be
        4809a3ba6cf3d8189c189e7c66fe9e8bf1006963b9266a3c817c61f72c9e50685e75c06b44f9dbcd42a72052637ce33d
        3ca58424359ddcaefcb87e2222a35c39dceae8a5ce968f49cf34a5865cb3e5e2
        """)
    /// An exponent whose public key is only 127 bytes long.
    static let shortPublicExponent = [UInt8](hex: """
        5fb4e767483b620551c9f2aae2b61420c0a6e8a2c34eec1c8bf8d564ebc972a0fac22d22a869ee32ae115446fc68821f
        30a6e25ab864f51dfdc0d78de72e247653b2cd5347425db33ffafe1639e64a806b4d9649e4e8a3b578b2cbfd5614b1af
        bf2c5dcd1c2b63dd6d20edbb71788b3586ddff8fd4521ab6f9d9cf0f38ddb157
        """)
    /// g^shortPublicExponent mod p: 127 bytes (minimal encoding).
    static let shortPublicKey = [UInt8](hex: """
        6a298b8f492e7e0a9f73b154197d248c0d737548707db316fd0a1f3455b9ad7818ff8f20035585d9e4fb813e59fffaee
        67171f8e0aca63a16b620356452782e20875bb617ee55b79fa8431703d94a0b137d43c9a399bdfd7f5fc8bc227b57aae
        bd767d0e2b7b4b4140c6724f0ece4195c472937c394f53b2672aad39271ebc
        """)
    /// A 127-byte peer key (= shortPublicKey).
    static let shortPeerKey = [UInt8](hex: """
        6a298b8f492e7e0a9f73b154197d248c0d737548707db316fd0a1f3455b9ad7818ff8f20035585d9e4fb813e59fffaee
        67171f8e0aca63a16b620356452782e20875bb617ee55b79fa8431703d94a0b137d43c9a399bdfd7f5fc8bc227b57aae
        bd767d0e2b7b4b4140c6724f0ece4195c472937c394f53b2672aad39271ebc
        """)
    /// shortPeerKey^exchangeServerExponent mod p, padded to 128 bytes.
    static let shortPeerSharedSecret = [UInt8](hex: """
        6e7c006008d2caf91738107c351e211975921428f4ba9ea92b33b1c6968d489ac6a3e83722bf3ed4f03f9befe8a3c285
        4c5602ce78d5cd15e8de67b1adfe99b8f97d63020d6c0a80592586431239517d26c008f9de26c121562e12fc1f6ca9a5
        49d3325b69a4151b7b22db077480aa752f67515940b55fa208a5b42eeb39b6f8
        """)
    /// p - 2: a valid 128-byte peer key with the high bit set.
    static let highBitPeerKey = [UInt8](hex: """
        ffffffffffffffffc90fdaa22168c234c4c6628b80dc1cd129024e088a67cc74020bbea63b139b22514a08798e3404dd
        ef9519b3cd3a431b302b0a6df25f14374fe1356d6d51c245e485b576625e7ec6f44c42e9a637ed6b0bff5cb6f406b7ed
        ee386bfb5a899fa5ae9f24117c4b1fe649286651ece65381fffffffffffffffd
        """)
    /// highBitPeerKey^exchangeServerExponent mod p, padded to 128 bytes.
    static let highBitPeerSharedSecret = [UInt8](hex: """
        b90ec3f8b87dc0537b47859c94132d9d2f8428de7ae8ef4cf45bcf9f25644fd19a0a6ddcc74d7fd287f5e716bc8232f0
        493fb07f6f4089ade03afed7707d36814fb6162eaee516ab6d395d537956755b2ac245d62eade3a2ddb335b3a54587d6
        940a942b31fd3134be6d761f31a84318da2ab614fd7a191bbc697a5c743cf07c
        """)
    /// p - 1 (must be rejected).
    static let primeMinusOne = [UInt8](hex: """
        ffffffffffffffffc90fdaa22168c234c4c6628b80dc1cd129024e088a67cc74020bbea63b139b22514a08798e3404dd
        ef9519b3cd3a431b302b0a6df25f14374fe1356d6d51c245e485b576625e7ec6f44c42e9a637ed6b0bff5cb6f406b7ed
        ee386bfb5a899fa5ae9f24117c4b1fe649286651ece65381fffffffffffffffe
        """)
    /// p + 1 (129 bytes; must be rejected).
    static let primePlusOne = [UInt8](hex: """
        ffffffffffffffffc90fdaa22168c234c4c6628b80dc1cd129024e088a67cc74020bbea63b139b22514a08798e3404dd
        ef9519b3cd3a431b302b0a6df25f14374fe1356d6d51c245e485b576625e7ec6f44c42e9a637ed6b0bff5cb6f406b7ed
        ee386bfb5a899fa5ae9f24117c4b1fe649286651ece653820000000000000000
        """)
}
