package io.tributary.core.packet;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PublicKey;
import java.security.spec.X509EncodedKeySpec;
import java.util.Arrays;
import java.util.Base64;
import javax.crypto.Cipher;

/**
 * The client side of MySQL's password authentication methods.
 *
 * <ul>
 *   <li>{@code mysql_native_password}: {@code SHA1(password) XOR SHA1(seed + SHA1(SHA1(password)))}.</li>
 *   <li>{@code caching_sha2_password} fast path:
 *       {@code SHA256(password) XOR SHA256(SHA256(SHA256(password)) + seed)}.</li>
 *   <li>{@code caching_sha2_password} full authentication without TLS: {@code password + NUL}, XORed
 *       with the seed (repeated), encrypted with the server's RSA public key using
 *       {@code RSA/ECB/OAEPWithSHA-1AndMGF1Padding}. Over TLS the clear {@code password + NUL} is sent.</li>
 * </ul>
 * An empty password is answered with an empty response. Stateless and thread-safe.
 */
public final class AuthScramble {
    private AuthScramble() {
    }

    /** The first auth response for a plugin named in a handshake or auth switch. */
    public static byte[] forPlugin(String plugin, byte[] password, byte[] seed) {
        return switch (plugin) {
            case MySqlProtocol.MYSQL_NATIVE_PASSWORD -> nativePassword(password, seed);
            case MySqlProtocol.CACHING_SHA2_PASSWORD -> cachingSha2(password, seed);
            default -> throw new IllegalArgumentException("unsupported authentication plugin '" + plugin
                    + "' (supported: mysql_native_password, caching_sha2_password)");
        };
    }

    public static byte[] nativePassword(byte[] password, byte[] seed) {
        if (password.length == 0) {
            return new byte[0];
        }
        MessageDigest sha1 = digest("SHA-1");
        byte[] stage1 = sha1.digest(password);
        byte[] stage2 = sha1.digest(stage1);
        sha1.update(seed);
        sha1.update(stage2);
        return xor(stage1, sha1.digest());
    }

    public static byte[] cachingSha2(byte[] password, byte[] seed) {
        if (password.length == 0) {
            return new byte[0];
        }
        MessageDigest sha256 = digest("SHA-256");
        byte[] d1 = sha256.digest(password);
        byte[] d2 = sha256.digest(d1);
        sha256.update(d2);
        sha256.update(seed);
        return xor(d1, sha256.digest());
    }

    /** {@code password + NUL}, for full authentication over TLS. */
    public static byte[] clearPassword(byte[] password) {
        return Arrays.copyOf(password, password.length + 1);
    }

    /** {@code (password + NUL) XOR seed}, encrypted with the server's PEM-encoded RSA public key. */
    public static byte[] rsaEncryptedPassword(byte[] password, byte[] seed, String pemPublicKey) {
        if (seed.length == 0) {
            throw new IllegalArgumentException("empty scramble");
        }
        byte[] plain = clearPassword(password);
        for (int i = 0; i < plain.length; i++) {
            plain[i] ^= seed[i % seed.length];
        }
        try {
            Cipher cipher = Cipher.getInstance("RSA/ECB/OAEPWithSHA-1AndMGF1Padding");
            cipher.init(Cipher.ENCRYPT_MODE, parsePublicKey(pemPublicKey));
            return cipher.doFinal(plain);
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot encrypt the password with the server's RSA public key: " + e.getMessage(), e);
        }
    }

    /** Parses a {@code -----BEGIN PUBLIC KEY-----} (X.509 SubjectPublicKeyInfo) PEM block. */
    public static PublicKey parsePublicKey(String pem) {
        String begin = "-----BEGIN PUBLIC KEY-----";
        String end = "-----END PUBLIC KEY-----";
        int b = pem.indexOf(begin);
        int e = pem.indexOf(end);
        if (b < 0 || e < b) {
            throw new IllegalArgumentException("server public key is not a PEM '" + begin + "' block: "
                    + pem.substring(0, Math.min(60, pem.length())));
        }
        String base64 = pem.substring(b + begin.length(), e).replaceAll("\\s", "");
        try {
            return KeyFactory.getInstance("RSA").generatePublic(new X509EncodedKeySpec(Base64.getDecoder().decode(base64)));
        } catch (GeneralSecurityException | IllegalArgumentException ex) {
            throw new IllegalArgumentException("server public key cannot be read: " + ex.getMessage(), ex);
        }
    }

    public static byte[] utf8(String s) {
        return s == null ? new byte[0] : s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] xor(byte[] a, byte[] b) {
        byte[] r = new byte[a.length];
        for (int i = 0; i < a.length; i++) {
            r[i] = (byte) (a[i] ^ b[i]);
        }
        return r;
    }

    private static MessageDigest digest(String algorithm) {
        try {
            return MessageDigest.getInstance(algorithm);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(algorithm + " missing from the JDK", e);
        }
    }
}
