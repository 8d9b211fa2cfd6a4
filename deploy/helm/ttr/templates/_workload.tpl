{{/*
The Deployment of one long-running component (api, scheduler, executor): the
same image, read-only root filesystem, /tmp from an emptyDir, probes on the
component's health port (/healthz for startup and liveness, /readyz for
readiness), connection URLs from the Secret.

Argument: dict
  "root"       $
  "component"  "api" | "scheduler" | "executor"
  "values"     .Values.<component>
  "portName"   name of the health/metrics port ("http" or "metrics")
  "port"       its number
  "env"        dict of the component's own variables (rendered sorted)
  "replicas"   false when an autoscaler owns the replica count
  "preStop"    seconds to sleep before SIGTERM (0: none)
*/}}
{{- define "ttr.deployment" -}}
{{- $root := .root }}
{{- $v := .values }}
{{- $sel := dict "root" $root "component" .component }}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "ttr.componentName" $sel }}
  labels:
    {{- include "ttr.labels" $sel | nindent 4 }}
spec:
  {{- if .replicas }}
  replicas: {{ $v.replicas }}
  {{- end }}
  revisionHistoryLimit: 5
  selector:
    matchLabels:
      {{- include "ttr.selectorLabels" $sel | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "ttr.labels" $sel | nindent 8 }}
        {{- with $v.podLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      annotations:
        checksum/config: {{ include "ttr.configChecksum" $root }}
        {{- if $root.Values.metrics.podAnnotations }}
        prometheus.io/scrape: "true"
        prometheus.io/port: {{ .port | quote }}
        prometheus.io/path: /metrics
        {{- end }}
        {{- with $v.podAnnotations }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      serviceAccountName: {{ include "ttr.serviceAccountName" $root }}
      automountServiceAccountToken: false
      # no FOO_SERVICE_HOST variables: ttr is configured by its own variables only
      enableServiceLinks: false
      {{- with $root.Values.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $v.priorityClassName }}
      priorityClassName: {{ . }}
      {{- end }}
      securityContext:
        {{- toYaml $v.podSecurityContext | nindent 8 }}
      terminationGracePeriodSeconds: {{ $v.terminationGracePeriodSeconds }}
      containers:
        - name: {{ .component }}
          image: {{ include "ttr.image" $root }}
          imagePullPolicy: {{ $root.Values.image.pullPolicy }}
          args: [{{ .component | quote }}]
          ports:
            - name: {{ .portName }}
              containerPort: {{ .port }}
              protocol: TCP
          envFrom:
            - configMapRef:
                name: {{ include "ttr.componentName" (dict "root" $root "component" "config") }}
          env:
            {{- include "ttr.connectionEnv" $root | nindent 12 }}
            {{- if eq .component "executor" }}
            {{- include "ttr.secretKeyEnv" (dict "root" $root) | nindent 12 }}
            {{- end }}
            {{- with include "ttr.redisSecretEnv" $root | trim }}
            {{- . | nindent 12 }}
            {{- end }}
            {{- range $name, $value := .env }}
            - name: {{ $name }}
              value: {{ $value | toString | quote }}
            {{- end }}
            {{- with $v.extraEnv }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          startupProbe:
            httpGet:
              path: /healthz
              port: {{ .portName }}
            {{- toYaml $v.probes.startup | nindent 12 }}
          livenessProbe:
            httpGet:
              path: /healthz
              port: {{ .portName }}
            {{- toYaml $v.probes.liveness | nindent 12 }}
          readinessProbe:
            httpGet:
              path: /readyz
              port: {{ .portName }}
            {{- toYaml $v.probes.readiness | nindent 12 }}
          {{- if .preStop }}
          lifecycle:
            preStop:
              exec:
                command: ["sleep", {{ .preStop | toString | quote }}]
          {{- end }}
          resources:
            {{- toYaml $v.resources | nindent 12 }}
          securityContext:
            {{- toYaml $v.securityContext | nindent 12 }}
          volumeMounts:
            - name: tmp
              mountPath: /tmp
            {{- with include "ttr.redisVolumeMounts" $root | trim }}
            {{- . | nindent 12 }}
            {{- end }}
      volumes:
        {{- include "ttr.tmpVolume" $root | nindent 8 }}
        {{- with include "ttr.redisVolumes" $root | trim }}
        {{- . | nindent 8 }}
        {{- end }}
      {{- with include "ttr.scheduling" (dict "root" $root "component" .component "values" $v) | trim }}
      {{- . | nindent 6 }}
      {{- end }}
{{- end }}

{{/*
PodDisruptionBudget of a component: minAvailable when set, else
maxUnavailable. Argument: dict "root" "component" "values".
*/}}
{{- define "ttr.pdb" -}}
{{- $sel := dict "root" .root "component" .component }}
{{- $pdb := .values.pdb }}
{{- if $pdb.enabled }}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ include "ttr.componentName" $sel }}
  labels:
    {{- include "ttr.labels" $sel | nindent 4 }}
spec:
  {{- if not (kindIs "invalid" $pdb.minAvailable) }}
  minAvailable: {{ $pdb.minAvailable }}
  {{- else }}
  maxUnavailable: {{ $pdb.maxUnavailable }}
  {{- end }}
  selector:
    matchLabels:
      {{- include "ttr.selectorLabels" $sel | nindent 6 }}
{{- end }}
{{- end }}

{{/*
A ClusterIP Service in front of a component's port. Argument: dict "root"
"component" "portName" "port" "servicePort" "type" "annotations".
*/}}
{{- define "ttr.service" -}}
{{- $sel := dict "root" .root "component" .component }}
apiVersion: v1
kind: Service
metadata:
  name: {{ .name | default (include "ttr.componentName" $sel) }}
  labels:
    {{- include "ttr.labels" $sel | nindent 4 }}
  {{- with .annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  type: {{ .type | default "ClusterIP" }}
  selector:
    {{- include "ttr.selectorLabels" $sel | nindent 4 }}
  ports:
    - name: {{ .portName }}
      port: {{ .servicePort }}
      targetPort: {{ .portName }}
      protocol: TCP
{{- end }}
