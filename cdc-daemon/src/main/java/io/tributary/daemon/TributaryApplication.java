package io.tributary.daemon;

import io.tributary.daemon.cli.BinlogBrowser;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Properties;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The Tributary daemon: reads every configured shard's binlog, writes the one global binlog and serves it on the
 * dump port. {@code --help}, {@code --version} and the {@code binlog} subcommand answer without starting anything.
 */
@SpringBootApplication
public class TributaryApplication {

    /** What {@code --help} prints; {@code %s} is the version. */
    static final String USAGE = """
            Tributary %s: merges the binlogs of sharded MySQL/MariaDB servers into one global binlog, in one global
            order with the XA branches of a transaction stitched into one, and serves it over the MySQL replication
            protocol to replicas and CDC tools.

            Usage: java -jar cdc-daemon-%s-exec.jar [--spring.config.location=FILE] [--KEY=VALUE ...]
                   java -jar cdc-daemon-%s-exec.jar binlog DIR | --url http://127.0.0.1:9400

              --spring.config.location=FILE  the configuration (application.yml); deploy/application.yml is a
                                             commented sample, docs/configuration.md lists every key
              --KEY=VALUE                    any configuration key, over the file (e.g. --dump.port=3400)
              --help                         print this and exit
              --version                      print the version and exit
              binlog DIR                     print what the global binlog directory DIR (binlog.dir) holds: each
                                             file's size, GTID range, transactions and times, the transactions per
                                             logical table and the checkpoint's global and shard positions; exit
                                             code 2 when DIR is missing or unreadable
              binlog --url URL               the same, asked of a running daemon's management port (URL such as
                                             http://127.0.0.1:9400); exit code 2 naming the URL when it cannot

            Once started: the dump port (dump.port, default 3399) serves the global binlog; the management port
            (server.port, default 127.0.0.1:9400) serves the status page (/), /status.json, /actuator/health,
            /actuator/prometheus and /admin/config.
            Operating it (status line, metrics, live edits): docs/operating.md.
            """;

    public static void main(String[] args) {
        if (args.length > 0 && args[0].equals("binlog")) {
            int code = BinlogBrowser.run(List.of(args).subList(1, args.length), System.out, System.err);
            System.out.flush();
            System.exit(code);
        }
        if (answered(args, System.out)) {
            return;
        }
        SpringApplication.run(TributaryApplication.class, args);
    }

    /** Prints the usage or the version when {@code args} ask for it; true then (nothing is to be started). */
    static boolean answered(String[] args, PrintStream out) {
        for (String arg : args) {
            if (arg.equals("--help") || arg.equals("-h")) {
                out.print(String.format(USAGE, version(), version(), version()));
                return true;
            }
            if (arg.equals("--version")) {
                out.println("Tributary " + version());
                return true;
            }
        }
        return false;
    }

    /** The build's version ({@code version.properties}, filtered by Maven). */
    public static String version() {
        try (InputStream in = TributaryApplication.class.getResourceAsStream("version.properties")) {
            if (in == null) {
                return "unknown";
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
