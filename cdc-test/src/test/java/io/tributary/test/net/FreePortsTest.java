package io.tributary.test.net;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Two shards of one cluster once got the same port (the kernel handed it out twice), the second server
 * failed to bind, and the harness took the first server's answer for the second's: the cluster had one
 * server under two names. The ports the harnesses hand out must be distinct, and free.
 */
class FreePortsTest {

    @Test
    void shouldNeverHandTheSamePortOutTwice() {
        Set<Integer> ports = new HashSet<>();
        for (int i = 0; i < 300; i++) {
            int port = FreePorts.next();
            assertThat(ports.add(port)).as("port %d handed out twice (call %d)", port, i).isTrue();
        }
    }

    @Test
    void shouldHandOutAPortThatCanBeBound() throws Exception {
        int port = FreePorts.next();
        try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            assertThat(s.getLocalPort()).isEqualTo(port);
        }
    }
}
