package io.tributary.daemon.dump;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A user allowed to subscribe, with its password stored only as hashes: {@code SHA1(SHA1(password))}
 * for {@code mysql_native_password} (what MySQL keeps in {@code mysql.user}) and
 * {@code SHA256(SHA256(password))} for {@code caching_sha2_password}'s scramble check. The password
 * itself is never kept.
 *
 * @param name       the user name clients log in with
 * @param nativeHash SHA1(SHA1(password)), 20 bytes
 * @param sha2Hash   SHA256(SHA256(password)), 32 bytes
 * @param admin      may change the live settings with {@code SET GLOBAL} ({@code dump.users[i].admin})
 */
public record DumpUser(String name, byte[] nativeHash, byte[] sha2Hash, boolean admin) {

    public DumpUser {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("a dump user needs a name");
        }
        if (nativeHash.length != 20 || sha2Hash.length != 32) {
            throw new IllegalArgumentException("user " + name + ": expected a 20-byte SHA1 and a 32-byte SHA256 hash, found "
                    + nativeHash.length + " and " + sha2Hash.length + " bytes");
        }
        nativeHash = nativeHash.clone();
        sha2Hash = sha2Hash.clone();
    }

    /** A subscriber account (not admin); hashes {@code password} once, at configuration time, and forgets it. */
    public static DumpUser withPassword(String name, String password) {
        return withPassword(name, password, false);
    }

    /** Hashes {@code password} once, at configuration time, and forgets it. */
    public static DumpUser withPassword(String name, String password, boolean admin) {
        byte[] pw = password.getBytes(StandardCharsets.UTF_8);
        DumpUser u = new DumpUser(name, digest("SHA-1", digest("SHA-1", pw)), digest("SHA-256", digest("SHA-256", pw)),
                admin);
        java.util.Arrays.fill(pw, (byte) 0);
        return u;
    }

    /** From configured hex hashes ({@code *<40 hex>} as MySQL prints native hashes is accepted). */
    public static DumpUser withHashes(String name, String nativeHex, String sha2Hex) {
        String n = nativeHex.startsWith("*") ? nativeHex.substring(1) : nativeHex;
        return new DumpUser(name, HexFormat.of().parseHex(n), HexFormat.of().parseHex(sha2Hex), false);
    }

    static byte[] digest(String algorithm, byte[]... parts) {
        try {
            MessageDigest md = MessageDigest.getInstance(algorithm);
            for (byte[] p : parts) {
                md.update(p);
            }
            return md.digest();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(algorithm + " missing from the JDK", e);
        }
    }

    @Override
    public byte[] nativeHash() {
        return nativeHash.clone();
    }

    @Override
    public byte[] sha2Hash() {
        return sha2Hash.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DumpUser u && u.name.equals(name) && u.admin == admin && MessageDigest.isEqual(u.nativeHash, nativeHash)
                && MessageDigest.isEqual(u.sha2Hash, sha2Hash);
    }

    @Override
    public int hashCode() {
        return name.hashCode();
    }

    @Override
    public String toString() {
        return "DumpUser[" + name + (admin ? ", admin" : "") + ", password hashed]";
    }
}
