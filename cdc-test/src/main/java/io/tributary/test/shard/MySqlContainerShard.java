package io.tributary.test.shard;

import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.PortBinding;
import com.github.dockerjava.api.model.Ports;
import java.io.InputStream;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.OptionalLong;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.mysql.MySQLContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * A MySQL 8.0 or 8.4 shard in a Testcontainers container, configured like the embedded MariaDB shards
 * (ROW binlog, FULL row image and metadata, CRC32, GTID mode on, a distinct {@code server_id}) with the
 * same two accounts.
 *
 * <p>The container's port 3306 is bound to a fixed free host port so that a stopped and restarted
 * shard keeps the address clients know. Stop and start use the Docker API on the same container, so
 * the data survives a restart; {@link #close()} removes the container.
 *
 * <p>Needs a Docker engine: {@link ShardCluster} checks {@link #dockerAvailable()} first and the JUnit
 * extension turns a missing engine into a skipped test with that reason.
 */
public final class MySqlContainerShard implements Shard {

    /** The image's data directory, which also holds the binlog files. */
    private static final String DATA_DIRECTORY = "/var/lib/mysql/";

    private final MySQLContainer container;
    private volatile ShardInfo info;
    private boolean running;

    MySqlContainerShard(ShardInfo info) {
        this.info = info;
        String image = switch (info.flavor()) {
            case MYSQL_8_0 -> "mysql:8.0";
            case MYSQL_8_4 -> "mysql:8.4";
            case MARIADB_10_11 -> throw new IllegalArgumentException("MariaDB shards run embedded, not in a container");
        };
        int hostPort = info.port();
        this.container = new MySQLContainer(DockerImageName.parse(image))
                .withUsername("root")
                .withPassword(info.adminPassword())
                .withCommand("--server-id=" + info.serverId(), "--log-bin=mysql-bin", "--binlog-format=ROW",
                        "--binlog-row-image=FULL", "--binlog-row-metadata=FULL", "--binlog-checksum=CRC32",
                        "--gtid-mode=ON", "--enforce-gtid-consistency=ON", "--max-allowed-packet=1073741824")
                .withCreateContainerCmdModifier(cmd -> cmd.withHostConfig(HostConfig.newHostConfig()
                        .withPortBindings(new PortBinding(Ports.Binding.bindPort(hostPort), ExposedPort.tcp(3306)))))
                .withStartupTimeout(Duration.ofMinutes(3));
    }

    /** Whether a Docker engine answers; the reason it does not is in {@link #dockerUnavailableReason()}. */
    public static boolean dockerAvailable() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** Why MySQL shards cannot run here, for a skipped test's message. */
    public static String dockerUnavailableReason() {
        return "MySQL shards need a Docker engine and none answers on this machine (Testcontainers found no "
                + "usable DOCKER_HOST or /var/run/docker.sock); MariaDB shards run without one";
    }

    @Override
    public ShardInfo info() {
        return info;
    }

    @Override
    public synchronized boolean isRunning() {
        return running && container.isRunning();
    }

    @Override
    public OptionalLong pid() {
        return OptionalLong.empty();
    }

    @Override
    public synchronized void start() {
        if (running) {
            return;
        }
        if (container.getContainerId() == null) {
            container.start();
            createAccounts();
        } else {
            DockerClientFactory.instance().client().startContainerCmd(container.getContainerId()).exec();
            awaitReady(Duration.ofMinutes(2));
        }
        running = true;
    }

    @Override
    public synchronized void stop(Duration timeout) {
        if (!running) {
            return;
        }
        DockerClientFactory.instance().client().stopContainerCmd(container.getContainerId())
                .withTimeout((int) Math.max(1, timeout.toSeconds())).exec();
        running = false;
    }

    @Override
    public synchronized void kill() {
        if (!running) {
            return;
        }
        DockerClientFactory.instance().client().killContainerCmd(container.getContainerId()).withSignal("KILL").exec();
        running = false;
    }

    /**
     * The bytes of one of the shard's binlog files (a name from {@code SHOW BINARY LOGS}), copied out of
     * the container's data directory, where {@code --log-bin=mysql-bin} puts them.
     */
    public byte[] readBinlogFile(String fileName) {
        if (fileName.contains("/")) {
            throw new IllegalArgumentException("Invalid value " + fileName + " for binlog file name: must be a plain"
                    + " name as SHOW BINARY LOGS gives it");
        }
        return container.copyFileFromContainer(DATA_DIRECTORY + fileName, InputStream::readAllBytes);
    }

    @Override
    public synchronized void close() {
        container.stop();
        running = false;
    }

    private void createAccounts() {
        try (Connection c = DriverManager.getConnection(info.jdbcUrl(), "root", info.adminPassword());
             Statement s = c.createStatement()) {
            s.execute("SET SESSION sql_log_bin=0");
            s.execute("CREATE USER IF NOT EXISTS '" + info.adminUser() + "'@'%' IDENTIFIED BY '" + info.adminPassword() + "'");
            s.execute("GRANT ALL PRIVILEGES ON *.* TO '" + info.adminUser() + "'@'%' WITH GRANT OPTION");
            s.execute("CREATE USER IF NOT EXISTS '" + info.replUser() + "'@'%' IDENTIFIED BY '" + info.replPassword() + "'");
            s.execute("GRANT REPLICATION SLAVE, REPLICATION CLIENT, SELECT ON *.* TO '" + info.replUser() + "'@'%'");
            s.execute("GRANT ALL PRIVILEGES ON `__cdc__`.* TO '" + info.replUser() + "'@'%'");
        } catch (SQLException e) {
            throw new IllegalStateException(info.name() + ": cannot create accounts: " + e.getMessage(), e);
        }
    }

    private void awaitReady(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            try (Connection c = info.openAdminConnection()) {
                if (c.isValid(2)) {
                    return;
                }
            } catch (SQLException e) {
                // not up yet
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        throw new IllegalStateException(info.name() + ": MySQL did not accept connections within " + timeout);
    }
}
