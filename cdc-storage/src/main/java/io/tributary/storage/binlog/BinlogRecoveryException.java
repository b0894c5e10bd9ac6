package io.tributary.storage.binlog;

import java.io.IOException;

/** The binlog directory is in a state recovery will not repair by itself (it would lose durable data). */
public final class BinlogRecoveryException extends IOException {
    public BinlogRecoveryException(String message) {
        super(message);
    }

    public BinlogRecoveryException(String message, Throwable cause) {
        super(message, cause);
    }
}
