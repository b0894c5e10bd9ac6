package io.tributary.core.packet;

/**
 * The peer answered with an ERR packet. {@link #err()} holds code, SQLSTATE and the server's
 * message; {@link #error()} is the matching {@link MySqlError} when the code is one we know.
 */
public class MySqlServerException extends RuntimeException {
    private final ErrPacket err;

    public MySqlServerException(String context, ErrPacket err) {
        super(context + ": server error " + err.code() + " (" + err.sqlState() + "): " + err.message());
        this.err = err;
    }

    public ErrPacket err() {
        return err;
    }

    public int code() {
        return err.code();
    }

    public MySqlError error() {
        return MySqlError.forCode(err.code());
    }
}
