package io.tributary.daemon.dump;

import javax.crypto.Cipher;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Checks what clients send against the stored hashes of {@link DumpUser}s.
 *
 * <ul>
 *   <li>{@code mysql_native_password}: the client sends {@code SHA1(pw) XOR SHA1(seed + SHA1(SHA1(pw)))};
 *       XOR with {@code SHA1(seed + stored)} gives {@code SHA1(pw)}, whose SHA1 must equal the stored hash.</li>
 *   <li>{@code caching_sha2_password} fast path: the client sends
 *       {@code SHA256(pw) XOR SHA256(SHA256(SHA256(pw)) + seed)}; checked the same way with SHA256. As on a
 *       MySQL server, the fast path is accepted only for a user that passed a full authentication since the
 *       server started (the "cache").</li>
 *   <li>{@code caching_sha2_password} full authentication: the password arrives RSA-encrypted (OAEP, SHA-1)
 *       with this server's key, XORed with the seed; its double SHA256 must equal the stored hash.</li>
 * </ul>
 *
 * <p>The RSA key pair is generated once per server, in the background. Thread-safe.
 */
public final class Authenticator {
    public static final String NATIVE = "mysql_native_password";
    public static final String CACHING_SHA2 = "caching_sha2_password";

    private final Map<String, DumpUser> users;
    private final Set<String> fullyAuthenticated = ConcurrentHashMap.newKeySet();
    private final java.util.concurrent.CompletableFuture<KeyPair> rsa;

    public Authenticator(Map<String, DumpUser> users) {
        this.users = Map.copyOf(users);
        // an RSA 2048 key takes seconds on a busy machine: made in the background, needed only by the first
        // client that does a full caching_sha2_password authentication without TLS
        this.rsa = java.util.concurrent.CompletableFuture.supplyAsync(Authenticator::generateRsa);
    }

    private static KeyPair generateRsa() {
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
            g.initialize(2048);
            return g.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot generate the RSA key for caching_sha2_password", e);
        }
    }

    private KeyPair rsa() {
        return rsa.join();
    }

    /** The PEM text sent to a client that asks for the public key. */
    public String publicKeyPem() {
        return "-----BEGIN PUBLIC KEY-----\n"
                + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(rsa().getPublic().getEncoded())
                + "\n-----END PUBLIC KEY-----\n";
    }

    public boolean knows(String user) {
        return users.containsKey(user);
    }

    /** Whether {@code user} is an admin account ({@code dump.users[i].admin}). */
    public boolean isAdmin(String user) {
        DumpUser u = users.get(user);
        return u != null && u.admin();
    }

    /** Whether {@code response} is a valid {@code mysql_native_password} scramble for {@code user}. */
    public boolean checkNative(String user, byte[] seed, byte[] response) {
        DumpUser u = users.get(user);
        if (u == null || response.length != 20) {
            return false;
        }
        byte[] stored = u.nativeHash();
        byte[] stage1 = xor(response, DumpUser.digest("SHA-1", seed, stored));
        return MessageDigest.isEqual(DumpUser.digest("SHA-1", stage1), stored);
    }

    /** The fast path: a valid scramble from a user that authenticated fully before. */
    public boolean checkCachingSha2Fast(String user, byte[] seed, byte[] response) {
        DumpUser u = users.get(user);
        if (u == null || response.length != 32 || !fullyAuthenticated.contains(user)) {
            return false;
        }
        byte[] stored = u.sha2Hash();
        byte[] stage1 = xor(response, DumpUser.digest("SHA-256", stored, seed));
        return MessageDigest.isEqual(DumpUser.digest("SHA-256", stage1), stored);
    }

    /** Full authentication with an RSA-encrypted password; remembers the user for the fast path. */
    public boolean checkCachingSha2Rsa(String user, byte[] seed, byte[] encrypted) {
        byte[] plain;
        try {
            Cipher cipher = Cipher.getInstance("RSA/ECB/OAEPWithSHA-1AndMGF1Padding");
            cipher.init(Cipher.DECRYPT_MODE, rsa().getPrivate());
            plain = cipher.doFinal(encrypted);
        } catch (GeneralSecurityException e) {
            return false;
        }
        for (int i = 0; i < plain.length; i++) {
            plain[i] ^= seed[i % seed.length];
        }
        return checkClear(user, plain);
    }

    /** Full authentication with a clear password ({@code password + NUL}, over TLS). */
    public boolean checkClear(String user, byte[] passwordNul) {
        DumpUser u = users.get(user);
        if (u == null) {
            return false;
        }
        int end = passwordNul.length > 0 && passwordNul[passwordNul.length - 1] == 0 ? passwordNul.length - 1
                : passwordNul.length;
        byte[] pw = Arrays.copyOf(passwordNul, end);
        boolean ok = MessageDigest.isEqual(DumpUser.digest("SHA-256", DumpUser.digest("SHA-256", pw)), u.sha2Hash());
        Arrays.fill(pw, (byte) 0);
        if (ok) {
            fullyAuthenticated.add(user);
        }
        return ok;
    }

    static byte[] xor(byte[] a, byte[] b) {
        byte[] out = new byte[a.length];
        for (int i = 0; i < a.length; i++) {
            out[i] = (byte) (a[i] ^ b[i % b.length]);
        }
        return out;
    }

    static String utf8(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
