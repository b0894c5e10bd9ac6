package io.tributary.test.shard;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Two shards of one cluster once got the same port (the kernel handed it out twice), the second server
 * failed to bind, and the harness took the first server's answer for the second's: the cluster had one
 * server under two names. The ports the harness hands out must be distinct.
 */
class ShardPortTest {

    @Test
    void shouldNeverHandTheSamePortToTwoShardsOfOneJvm() {
        Set<Integer> ports = new HashSet<>();
        for (int i = 0; i < 300; i++) {
            int port = EmbeddedMariaDbShard.freePort();
            assertThat(ports.add(port)).as("port %d handed out twice (call %d)", port, i).isTrue();
        }
    }
}
