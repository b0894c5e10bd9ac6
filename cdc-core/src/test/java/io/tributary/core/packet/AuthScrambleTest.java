package io.tributary.core.packet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.HexFormat;
import javax.crypto.Cipher;
import org.junit.jupiter.api.Test;

/**
 * Checks each scramble the way the server does, against stored hashes computed outside Java:
 * {@code printf password | sha1sum | xxd -r -p | sha1sum} (MySQL's documented
 * {@code PASSWORD('password')} = {@code *2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19}) and
 * {@code printf <pw> | sha256sum | xxd -r -p | sha256sum}.
 */
class AuthScrambleTest {
    private static final byte[] SEED = "0123456789abcdefghij".getBytes(StandardCharsets.US_ASCII);

    private static byte[] hex(String s) {
        return HexFormat.of().parseHex(s);
    }

    /** Server side of mysql_native_password: SHA1(scramble XOR SHA1(seed + stored)) must equal stored. */
    private static boolean serverAcceptsNative(byte[] scramble, byte[] stored) throws Exception {
        MessageDigest sha1 = MessageDigest.getInstance("SHA-1");
        sha1.update(SEED);
        byte[] mask = sha1.digest(stored);
        byte[] stage1 = new byte[20];
        for (int i = 0; i < 20; i++) {
            stage1[i] = (byte) (scramble[i] ^ mask[i]);
        }
        return MessageDigest.isEqual(MessageDigest.getInstance("SHA-1").digest(stage1), stored);
    }

    /** Server side of caching_sha2_password fast path: SHA256(scramble XOR SHA256(stored + seed)) must equal stored. */
    private static boolean serverAcceptsSha2(byte[] scramble, byte[] stored) throws Exception {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        sha.update(stored);
        byte[] mask = sha.digest(SEED);
        byte[] d1 = new byte[32];
        for (int i = 0; i < 32; i++) {
            d1[i] = (byte) (scramble[i] ^ mask[i]);
        }
        return MessageDigest.isEqual(MessageDigest.getInstance("SHA-256").digest(d1), stored);
    }

    @Test
    void nativePasswordScrambleIsAcceptedAgainstTheDocumentedPasswordHash() throws Exception {
        byte[] stored = hex("2470c0c06dee42fd1618bb99005adca2ec9d1e19");
        byte[] scramble = AuthScramble.nativePassword("password".getBytes(StandardCharsets.UTF_8), SEED);
        assertThat(scramble).hasSize(20);
        assertThat(serverAcceptsNative(scramble, stored)).isTrue();
        assertThat(serverAcceptsNative(AuthScramble.nativePassword("Password".getBytes(StandardCharsets.UTF_8), SEED), stored)).isFalse();
    }

    @Test
    void cachingSha2ScrambleIsAcceptedAgainstTheCachedDigest() throws Exception {
        byte[] stored = hex("73641c99f7719f57d8f4beb11a303afcd190243a51ced8782ca6d3dbe014d146");
        byte[] scramble = AuthScramble.cachingSha2("password".getBytes(StandardCharsets.UTF_8), SEED);
        assertThat(scramble).hasSize(32);
        assertThat(serverAcceptsSha2(scramble, stored)).isTrue();
        byte[] utf8Stored = hex("e2cd1a228188f0703ba30ffe5e1bc013f0ae431d6213e97a9d2b42f78079ceab");
        assertThat(serverAcceptsSha2(AuthScramble.cachingSha2("pässwörd".getBytes(StandardCharsets.UTF_8), SEED), utf8Stored)).isTrue();
        assertThat(serverAcceptsSha2(scramble, utf8Stored)).isFalse();
    }

    @Test
    void emptyPasswordGivesAnEmptyResponse() {
        assertThat(AuthScramble.nativePassword(new byte[0], SEED)).isEmpty();
        assertThat(AuthScramble.cachingSha2(new byte[0], SEED)).isEmpty();
    }

    @Test
    void rsaFullAuthenticationDecryptsToPasswordXorScramble() throws Exception {
        KeyPairGenerator gen = KeyPairGenerator.getInstance("RSA");
        gen.initialize(2048);
        KeyPair pair = gen.generateKeyPair();
        String pem = "-----BEGIN PUBLIC KEY-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(pair.getPublic().getEncoded())
                + "\n-----END PUBLIC KEY-----\n";
        byte[] encrypted = AuthScramble.rsaEncryptedPassword("a-long-password-longer-than-the-seed".getBytes(StandardCharsets.UTF_8), SEED, pem);
        assertThat(encrypted).hasSize(256);
        Cipher cipher = Cipher.getInstance("RSA/ECB/OAEPWithSHA-1AndMGF1Padding");
        cipher.init(Cipher.DECRYPT_MODE, pair.getPrivate());
        byte[] plain = cipher.doFinal(encrypted);
        for (int i = 0; i < plain.length; i++) {
            plain[i] ^= SEED[i % SEED.length];
        }
        assertThat(new String(plain, StandardCharsets.UTF_8)).isEqualTo("a-long-password-longer-than-the-seed\0");
    }

    @Test
    void refusesAKeyThatIsNotPem() {
        assertThatThrownBy(() -> AuthScramble.rsaEncryptedPassword(new byte[] {1}, SEED, "ssh-rsa AAAA"))
                .hasMessageStartingWith("server public key is not a PEM '-----BEGIN PUBLIC KEY-----' block");
        assertThatThrownBy(() -> AuthScramble.forPlugin("sha256_password", new byte[] {1}, SEED))
                .hasMessage("unsupported authentication plugin 'sha256_password' (supported: mysql_native_password, caching_sha2_password)");
    }
}
