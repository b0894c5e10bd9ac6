package io.tributary.daemon.dump;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoField;

/**
 * The time functions clients evaluate on the server, with MySQL's text forms: {@code TIMEDIFF(datetime, datetime)}
 * (a TIME, {@code [-]HH:MM:SS[.ffffff]}, hours beyond 24 allowed) and {@code TIME_TO_SEC(time)}. Flink CDC's MySQL
 * source checks the server's time zone with {@code SELECT TIME_TO_SEC(TIMEDIFF(NOW(), UTC_TIMESTAMP()))}. NULL in,
 * NULL out, as on a server; so is a value that is not a DATETIME (or TIME) there.
 */
final class TimeValues {
    private static final DateTimeFormatter DATETIME = new DateTimeFormatterBuilder()
            .appendPattern("yyyy-MM-dd HH:mm:ss")
            .optionalStart().appendFraction(ChronoField.NANO_OF_SECOND, 0, 6, true).optionalEnd()
            .toFormatter();

    private TimeValues() {
    }

    /** {@code TIMEDIFF(a, b)}: a - b as a TIME; fractional digits as many as the more precise argument has. */
    static String timediff(String a, String b) {
        if (a == null || b == null) {
            return null;
        }
        LocalDateTime left;
        LocalDateTime right;
        try {
            left = LocalDateTime.parse(a.strip(), DATETIME);
            right = LocalDateTime.parse(b.strip(), DATETIME);
        } catch (DateTimeParseException e) {
            return null;
        }
        int digits = Math.max(fractionDigits(a), fractionDigits(b));
        Duration d = Duration.between(right, left);
        boolean negative = d.isNegative();
        Duration abs = d.abs();
        StringBuilder out = new StringBuilder(negative ? "-" : "");
        out.append(String.format("%02d:%02d:%02d", abs.toHours(), abs.toMinutesPart(), abs.toSecondsPart()));
        if (digits > 0) {
            String nanos = String.format("%09d", abs.toNanosPart());
            out.append('.').append(nanos, 0, digits);
        }
        return out.toString();
    }

    /** {@code TIME_TO_SEC(t)} of a {@code [-]H...H:MM:SS[.f]}: whole seconds, or with the fraction if it has one. */
    static String timeToSec(String time) {
        if (time == null) {
            return null;
        }
        String t = time.strip();
        boolean negative = t.startsWith("-");
        String[] parts = (negative ? t.substring(1) : t).split(":");
        if (parts.length != 3) {
            return null;
        }
        try {
            BigDecimal seconds = new BigDecimal(parts[2]);
            BigDecimal total = BigDecimal.valueOf(Long.parseLong(parts[0]) * 3600 + Long.parseLong(parts[1]) * 60)
                    .add(seconds);
            return (negative ? total.negate() : total).toPlainString();
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static int fractionDigits(String datetime) {
        int dot = datetime.indexOf('.');
        return dot < 0 ? 0 : Math.min(6, datetime.strip().length() - dot - 1);
    }
}
