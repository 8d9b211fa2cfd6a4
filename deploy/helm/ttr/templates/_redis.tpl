{{/* Redis beyond a URL, and the PostgreSQL pooling ttr accepts -------------- */}}

{{/*
PgBouncer in transaction mode gives each transaction whichever server
session is free: ttr's statements prepared per connection, the scheduler's
lease (tied to its session) and the migrations' advisory lock would not
hold. Refused with the reason, rather than failing in odd ways later.
*/}}
{{- define "ttr.checkPooling" -}}
{{- if eq .Values.connection.pgbouncerPoolMode "transaction" }}
{{- fail "connection.pgbouncerPoolMode=transaction is refused: ttr needs one PostgreSQL session per pool connection (statements prepared per connection, the scheduler's lease held by its session, the migrations' advisory lock). Run PgBouncer with pool_mode=session for ttr's database, or connect to PostgreSQL directly (deploy/README.md, PostgreSQL connections)" }}
{{- end }}
{{- if contains "pgbouncer=true" (include "ttr.databaseUrl" .) }}
{{- fail "connection.databaseUrl has pgbouncer=true (transaction pooling), which ttr refuses: use PgBouncer in session mode and drop pgbouncer=true (deploy/README.md, PostgreSQL connections)" }}
{{- end }}
{{- end }}

{{/* Settings for the ConfigMap: no secrets. */}}
{{- define "ttr.redisConfig" -}}
{{- $r := .Values.redis }}
REDIS_TLS: {{ or $r.tls (ne $r.tlsCaSecret "") | toString | quote }}
REDIS_SENTINELS: {{ join "," $r.sentinels | quote }}
REDIS_SENTINEL_NAME: {{ $r.sentinelName | quote }}
{{- if $r.tlsCaSecret }}
REDIS_TLS_CA_FILE: {{ printf "/etc/ttr/redis-tls/%s" $r.tlsCaKey | quote }}
{{- end }}
{{- end }}

{{/* Passwords from redis.existingSecret, as env entries. */}}
{{- define "ttr.redisSecretEnv" -}}
{{- $r := .Values.redis }}
{{- if $r.existingSecret }}
{{- if $r.passwordKey }}
- name: REDIS_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ $r.existingSecret }}
      key: {{ $r.passwordKey }}
{{- end }}
{{- if $r.sentinelPasswordKey }}
- name: REDIS_SENTINEL_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ $r.existingSecret }}
      key: {{ $r.sentinelPasswordKey }}
{{- end }}
{{- end }}
{{- end }}

{{/* The CA certificate's Secret, mounted read-only where REDIS_TLS_CA_FILE points. */}}
{{- define "ttr.redisVolumeMounts" -}}
{{- if .Values.redis.tlsCaSecret }}
- name: redis-tls
  mountPath: /etc/ttr/redis-tls
  readOnly: true
{{- end }}
{{- end }}

{{- define "ttr.redisVolumes" -}}
{{- if .Values.redis.tlsCaSecret }}
- name: redis-tls
  secret:
    secretName: {{ .Values.redis.tlsCaSecret }}
    items:
      - key: {{ .Values.redis.tlsCaKey }}
        path: {{ .Values.redis.tlsCaKey }}
{{- end }}
{{- end }}
