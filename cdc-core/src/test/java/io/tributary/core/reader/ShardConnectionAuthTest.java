package io.tributary.core.reader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.core.reader.ReplicationSourceFixture.Auth;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every authentication path of the reader against a {@link ReplicationSourceFixture} that checks
 * passwords the way MySQL does: native password, an auth switch from caching_sha2_password to
 * native, the caching_sha2 fast path, and full authentication with the server's RSA key. A wrong
 * password on each path stops the reader with a clear error after one attempt.
 */
class ShardConnectionAuthTest {

    private static byte[] binlog() throws Exception {
        return BinlogStreamTrackerTest.read(BinlogStreamTrackerTest.corpus().resolve("mariadb-10.x")
                .resolve(ShardReaderReconnectTest.FILE));
    }

    @ParameterizedTest
    @EnumSource(Auth.class)
    void shouldAuthenticateAndStream(Auth auth) throws Exception {
        try (ReplicationSourceFixture source = new ReplicationSourceFixture(auth, "s3cret-päss", binlog())) {
            List<ShardEvent> got = new CopyOnWriteArrayList<>();
            try (ShardReader reader = new ShardReader(ShardReaderReconnectTest.config(source.port(), "s3cret-päss"), e -> {
                got.add(e);
                e.release();
            })) {
                reader.start();
                long deadline = System.currentTimeMillis() + 10_000;
                while (got.size() < source.events().size() + 1 && System.currentTimeMillis() < deadline) {
                    Thread.sleep(10);
                }
                assertThat(got).as("fake ROTATE plus every event of the file").hasSize(source.events().size() + 1);
            }
            assertThat(source.authSteps()).containsExactlyElementsOf(switch (auth) {
                case NATIVE -> List.of("native");
                case SWITCH_TO_NATIVE -> List.of("switch", "native-after-switch");
                case SHA2_FAST -> List.of("sha2-fast");
                case SHA2_FULL_RSA -> List.of("sha2-full", "key-sent", "rsa-password");
            });
        }
    }

    @ParameterizedTest
    @EnumSource(Auth.class)
    void shouldStopOnAWrongPasswordWithoutRetrying(Auth auth) throws Exception {
        try (ReplicationSourceFixture source = new ReplicationSourceFixture(auth, "s3cret-päss", binlog());
             ShardReader reader = new ShardReader(ShardReaderReconnectTest.config(source.port(), "wrong"), ShardEvent::release)) {
            reader.start();
            assertThatThrownBy(() -> reader.termination().get(10, TimeUnit.SECONDS)).cause()
                    .isInstanceOf(ShardAuthenticationException.class)
                    .hasMessage("shard fixture: authentication failed for user 'cdc' at 127.0.0.1:" + source.port()
                            + ": server error 1045 (28000): Access denied for user 'cdc'");
            assertThat(source.connections()).as("connection attempts").isEqualTo(1);
            assertThat(source.authSteps()).last().isEqualTo("denied");
        }
    }
}
