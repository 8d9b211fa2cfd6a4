{{/* Names ----------------------------------------------------------------- */}}

{{- define "ttr.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Release-wide name, at most 52 characters. It becomes the first part of
object names, which must be DNS labels (RFC 1035: lower-case letters, digits
and "-", starting with a letter): a release name may hold dots and start with
a digit, so dots become "-" and a name not starting with a letter gets "ttr-"
in front (Kubernetes refused their Services, so no installed release is renamed).
*/}}
{{- define "ttr.fullname" -}}
{{- $full := "" }}
{{- if .Values.fullnameOverride }}
{{- $full = .Values.fullnameOverride }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- $full = .Release.Name }}
{{- else }}
{{- $full = printf "%s-%s" .Release.Name $name }}
{{- end }}
{{- end }}
{{- $full = replace "." "-" $full }}
{{- if not (regexMatch "^[a-z]" $full) }}
{{- $full = printf "ttr-%s" $full }}
{{- end }}
{{- regexReplaceAll "-+$" ($full | trunc 52) "" }}
{{- end }}

{{- define "ttr.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
<fullname>-<component>[-<suffix>], at most "max" characters (63, a DNS
label's limit, unless given). The fullname is cut, never the component part,
so names stay distinct however long the release name; a name that fits
keeps the fullname whole. dict "root" $ "component" "scheduler"
["suffix" "metrics"] ["max" 52] -> <fullname>-scheduler-metrics
*/}}
{{- define "ttr.componentName" -}}
{{- $part := .component }}
{{- if .suffix }}
{{- $part = printf "%s-%s" .component .suffix }}
{{- end }}
{{- $room := sub (.max | default 63) (add1 (len $part)) | int }}
{{- $prefix := regexReplaceAll "-+$" (include "ttr.fullname" .root | trunc $room) "" }}
{{- printf "%s-%s" $prefix $part }}
{{- end }}

{{/*
A regular expression (PromQL, anchored) matching the names of the pods of the
Deployment named by the argument, and no other's. Kubernetes names them
<deployment>-<pod-template-hash>-<5 random characters>, the part before the
random characters first cut to 58; the hash has at most 10 characters. When
nothing is cut, exactly two parts follow the name, so the pods of a
Deployment whose name merely starts with this one do not match.
*/}}
{{- define "ttr.podNamePattern" -}}
{{- if le (len .) 46 }}
{{- printf "%s-[a-z0-9]+-[a-z0-9]+" . }}
{{- else }}
{{- printf "%s[-a-z0-9]+" (printf "%s-" . | trunc 58) }}
{{- end }}
{{- end }}

{{- define "ttr.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "ttr.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* Labels ---------------------------------------------------------------- */}}

{{/*
Selector labels: stable for the life of a release (never the chart or app
version, which change on upgrade and cannot be changed in a selector).
Argument: dict "root" $ "component" "api" (component may be empty).
*/}}
{{- define "ttr.selectorLabels" -}}
app.kubernetes.io/name: {{ include "ttr.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
{{- if .component }}
app.kubernetes.io/component: {{ .component }}
{{- end }}
{{- end }}

{{- define "ttr.labels" -}}
helm.sh/chart: {{ include "ttr.chart" .root }}
{{ include "ttr.selectorLabels" . }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/part-of: ttr
{{- end }}

{{/* Image ----------------------------------------------------------------- */}}

{{/*
"latest" names no fixed build: pods of one release could pull different
code, and a rollback would not roll back. It is refused with a message
saying what to do (a schema rule could only say "not failed"); with a
digest the image is pinned and the tag is just a label.
*/}}
{{- define "ttr.image" -}}
{{- $tag := default .Chart.AppVersion .Values.image.tag | toString }}
{{- if and (eq $tag "latest") (not .Values.image.digest) }}
{{- fail (printf "image.tag \"latest\" is refused: it names no fixed build. Leave image.tag empty for the chart's appVersion (%s), set the tag of a release (--set image.tag=%s), or pin the build with image.digest=sha256:..." .Chart.AppVersion .Chart.AppVersion) }}
{{- end }}
{{- if .Values.image.digest }}
{{- printf "%s:%s@%s" .Values.image.repository $tag .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository $tag }}
{{- end }}
{{- end }}

{{/* Ingress --------------------------------------------------------------- */}}

{{/*
The api's public paths, the only ones its Ingress routes (each as a Prefix):
the public API, the dashboard's session API, the dashboard and the API's
self-description. /metrics, /healthz and /readyz are left out on purpose:
Prometheus and the kubelet reach the pods inside the cluster, and nothing
outside it needs them. A JSON list; a new public endpoint family is added here.
*/}}
{{- define "ttr.publicPaths" -}}
{{- list "/schedule" "/cancel" "/declare" "/bulk" "/tag-policies" "/auth" "/triggers" "/executions" "/project" "/stats" "/overview" "/dead-letters" "/dashboard" "/openapi.json" "/reference" | toJson }}
{{- end }}

{{/* dict "key" "evaluation.redis.image" "image" .Values.evaluation.redis.image -> repository:tag, never latest */}}
{{- define "ttr.evaluationImage" -}}
{{- if eq (toString .image.tag) "latest" }}
{{- fail (printf "%s.tag \"latest\" is refused: it names no fixed build. Set a version tag (values.yaml has one)" .key) }}
{{- end }}
{{- printf "%s:%s" .image.repository (toString .image.tag) }}
{{- end }}

{{/* Connection ------------------------------------------------------------ */}}

{{/* The evaluation PostgreSQL is what the release connects to. */}}
{{- define "ttr.usesEvaluationPostgresql" -}}
{{- if and .Values.evaluation.postgresql.enabled (not .Values.connection.existingSecret) (not .Values.connection.databaseUrl) }}true{{ end }}
{{- end }}

{{- define "ttr.databaseUrl" -}}
{{- if .Values.connection.databaseUrl }}
{{- .Values.connection.databaseUrl }}
{{- else if .Values.evaluation.postgresql.enabled }}
{{- $pg := .Values.evaluation.postgresql }}
{{- printf "postgresql://%s:%s@%s:5432/%s" $pg.username ($pg.password | urlquery) (include "ttr.componentName" (dict "root" . "component" "postgresql")) $pg.database }}
{{- end }}
{{- end }}

{{- define "ttr.redisUrl" -}}
{{- if .Values.connection.redisUrl }}
{{- .Values.connection.redisUrl }}
{{- else if .Values.evaluation.redis.enabled }}
{{- printf "redis://:%s@%s:6379/0" (.Values.evaluation.redis.password | urlquery) (include "ttr.componentName" (dict "root" . "component" "redis")) }}
{{- end }}
{{- end }}

{{- define "ttr.connectionSecretName" -}}
{{- if .Values.connection.existingSecret }}
{{- .Values.connection.existingSecret }}
{{- else }}
{{- include "ttr.componentName" (dict "root" . "component" "connection") }}
{{- end }}
{{- end }}

{{/* Is the release told where its databases are? (NOTES.txt warns when not) */}}
{{- define "ttr.connectionConfigured" -}}
{{- if or .Values.connection.existingSecret (and (include "ttr.databaseUrl" .) (or (include "ttr.redisUrl" .) .Values.redis.sentinels)) }}true{{ end }}
{{- end }}

{{- define "ttr.connectionEnv" -}}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ include "ttr.connectionSecretName" . }}
      key: {{ .Values.connection.databaseUrlKey }}
- name: REDIS_URL
  valueFrom:
    secretKeyRef:
      name: {{ include "ttr.connectionSecretName" . }}
      key: {{ .Values.connection.redisUrlKey }}
      {{- if .Values.redis.sentinels }}
      # with Sentinels the URL is optional (user, password, database number)
      optional: true
      {{- end }}
{{- end }}

{{/* The Secret holding TTR_SECRET_KEY: secretKey.existingSecret, or the chart's own. */}}
{{- define "ttr.secretKeySecretName" -}}
{{- .Values.secretKey.existingSecret | default (include "ttr.componentName" (dict "root" . "component" "secret-key")) }}
{{- end }}

{{/*
TTR_SECRET_KEY and TTR_SECRET_KEY_PREVIOUS from that Secret, when a key is
configured. `optional`: for the migrations hook Job, which on a first install
runs before the release's Secret exists (and has nothing to re-seal then).
*/}}
{{- define "ttr.secretKeyEnv" -}}
{{- $root := .root }}
{{- if or $root.Values.secretKey.existingSecret $root.Values.secretKey.value }}
- name: TTR_SECRET_KEY
  valueFrom:
    secretKeyRef:
      name: {{ include "ttr.secretKeySecretName" $root }}
      key: TTR_SECRET_KEY
      {{- if .optional }}
      optional: true
      {{- end }}
- name: TTR_SECRET_KEY_PREVIOUS
  valueFrom:
    secretKeyRef:
      name: {{ include "ttr.secretKeySecretName" $root }}
      key: TTR_SECRET_KEY_PREVIOUS
      optional: true
{{- end }}
{{- end }}

{{/*
Rolls every pod when the configuration the chart renders changes. A Secret
given as connection.existingSecret is not seen here: after changing it,
`kubectl rollout restart deployment -l app.kubernetes.io/instance=<release>`.
*/}}
{{- define "ttr.configChecksum" -}}
{{- printf "%s\n%s\n%s" (include (print .Template.BasePath "/configmap.yaml") .) (include (print .Template.BasePath "/secret.yaml") .) (include (print .Template.BasePath "/secret-key.yaml") .) | sha256sum }}
{{- end }}

{{/* Pods ------------------------------------------------------------------ */}}

{{/* The writable /tmp of every pod (root filesystems are read-only). */}}
{{- define "ttr.tmpVolume" -}}
- name: tmp
  emptyDir:
    sizeLimit: {{ .Values.tmpVolume.sizeLimit }}
{{- end }}

{{/*
nodeSelector, tolerations, affinity, topologySpreadConstraints of a component.
Argument: dict "root" $ "component" "api" "values" .Values.api
A spread constraint without labelSelector gets the component's selector.
*/}}
{{- define "ttr.scheduling" -}}
{{- $v := .values }}
{{- with $v.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $v.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $v.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- if $v.topologySpreadConstraints }}
{{- $constraints := list }}
{{- range $v.topologySpreadConstraints }}
{{- $c := deepCopy . }}
{{- if not (hasKey $c "labelSelector") }}
{{- $_ := set $c "labelSelector" (dict "matchLabels" (include "ttr.selectorLabels" $ | fromYaml)) }}
{{- end }}
{{- $constraints = append $constraints $c }}
{{- end }}
topologySpreadConstraints:
  {{- toYaml $constraints | nindent 2 }}
{{- end }}
{{- end }}
