package io.tributary.test.net;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The loopback ports the test harnesses give to shards, daemons and proxies. A port is picked by binding
 * port 0 and closing the socket; the kernel may then hand the same port to the next such bind (a CI run
 * once gave two shards of one cluster the same port, and the second server's readiness probe reached the
 * first). This is the one place ports are picked: each is handed out once per JVM.
 */
public final class FreePorts {

    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

    private FreePorts() {
    }

    /** A loopback TCP port nobody listens on right now and that this JVM has not handed out before. */
    public static int next() {
        for (int attempt = 0; attempt < 50; attempt++) {
            int port;
            try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                port = socket.getLocalPort();
            } catch (IOException e) {
                throw new UncheckedIOException("no free loopback port", e);
            }
            if (HANDED_OUT.add(port)) {
                return port;
            }
        }
        throw new IllegalStateException("the kernel kept offering ports this JVM already handed out ("
                + HANDED_OUT.size() + " so far)");
    }
}
