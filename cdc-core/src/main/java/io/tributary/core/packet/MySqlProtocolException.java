package io.tributary.core.packet;

import io.netty.handler.codec.DecoderException;

/**
 * Bytes that break the MySQL protocol: a packet out of sequence, a payload over the limit, a
 * message shorter than its fields. The message says what was expected and what was found; the
 * {@link #error()} is what a server answers such a peer with.
 */
public class MySqlProtocolException extends DecoderException {
    private final MySqlError error;

    public MySqlProtocolException(MySqlError error, String message) {
        super(message);
        this.error = error;
    }

    public MySqlProtocolException(MySqlError error, String message, Throwable cause) {
        super(message, cause);
        this.error = error;
    }

    public MySqlError error() {
        return error;
    }
}
