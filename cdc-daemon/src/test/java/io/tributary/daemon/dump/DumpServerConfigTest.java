package io.tributary.daemon.dump;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.core.event.BinlogFlavor;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The dump server's declared defaults are what the daemon and embedders get. */
class DumpServerConfigTest {

    private static final List<DumpUser> USERS = List.of(DumpUser.withPassword("repl", "pw"));

    @Test
    void shouldOfferTlsByDefaultAsTheDaemonDoesAndSayItInTheDeclaration() {
        DumpServerConfig parsed = DumpServerConfig.parse(Map.of("dump.users[0].name", "repl",
                "dump.users[0].password", "pw"), BinlogFlavor.MYSQL, 1, name -> null);
        assertThat(DumpServerConfig.TLS_ENABLED.defaultText()).isEqualTo("true");
        assertThat(parsed.tlsEnabled()).isTrue();
        assertThat(parsed.tlsCertificate()).as("generated at start").isNull();
        assertThat(parsed.checksums()).as("each event checked once").isEqualTo(
                io.tributary.storage.binlog.ChecksumPolicy.FIRST_READ);
    }

    @Test
    void shouldEmbedWithTheDeclaredDefaultsButWithoutTls() {
        DumpServerConfig embedded = DumpServerConfig.defaults(BinlogFlavor.MYSQL, 1, USERS);
        DumpServerConfig parsed = DumpServerConfig.parse(Map.of("dump.users[0].name", "repl",
                "dump.users[0].password", "pw", "dump.tls.enabled", "false", "dump.cache.size", "256MB"),
                BinlogFlavor.MYSQL, 1, name -> null);
        assertThat(embedded).usingRecursiveComparison().ignoringFields("users")
                .isEqualTo(parsed);
        assertThat(embedded.tlsEnabled()).isFalse();
    }
}
