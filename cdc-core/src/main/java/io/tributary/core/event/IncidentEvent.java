package io.tributary.core.event;

/**
 * INCIDENT_EVENT (26): something happened on the source that replicas cannot see in the binlog (e.g.
 * lost events). Body: {@code incident(2) message_length(1) message}.
 *
 * @param incident 1 = LOST_EVENTS
 * @param message  free text, may be empty
 */
public record IncidentEvent(int incident, String message) implements EventBody {

    static IncidentEvent read(EventReader r) {
        int incident = r.u16("incident type");
        if (!r.hasRemaining()) {
            return new IncidentEvent(incident, "");
        }
        int length = r.u8("incident message length");
        return new IncidentEvent(incident, r.string(length, "incident message"));
    }
}
