package io.tributary.core.event.rows;

import java.time.Duration;

/**
 * A TIME value: a signed duration of up to 838:59:59.999999, so hours may exceed 23 and the value may be
 * negative ({@code -507:48:27}).
 *
 * @param negative true for values below zero
 * @param hours    0-1023 as stored (MySQL itself limits to 838)
 * @param micros   fractional seconds in microseconds
 */
public record MysqlTime(boolean negative, int hours, int minutes, int seconds, int micros) {

    /** The value as a {@link Duration}. */
    public Duration toDuration() {
        Duration d = Duration.ofHours(hours).plusMinutes(minutes).plusSeconds(seconds).plusNanos(micros * 1000L);
        return negative ? d.negated() : d;
    }

    /** {@code [-]hh:mm:ss} followed by {@code fsp} fractional digits when {@code fsp > 0}, as MySQL prints it. */
    public String format(int fsp) {
        return (negative ? "-" : "") + String.format("%02d:%02d:%02d", hours, minutes, seconds) + fraction(micros, fsp);
    }

    @Override
    public String toString() {
        return format(micros == 0 ? 0 : 6);
    }

    /** {@code .ffffff} cut to {@code fsp} digits (MySQL truncates, the stored value has at most fsp digits). */
    static String fraction(int micros, int fsp) {
        if (fsp <= 0) {
            return "";
        }
        String six = String.format("%06d", micros);
        return "." + six.substring(0, Math.min(fsp, 6));
    }
}
