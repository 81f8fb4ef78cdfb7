"""moto_server with fillers for the resource types moto's CloudFormation skips.

Run: python3 moto_with_fillers.py -H 127.0.0.1 -p PORT   (the arguments of moto_server)

moto 5's CloudFormation creates DynamoDB tables, SNS topics, SQS queues, IAM roles, Lambda functions...
but skips a resource type it has no model for, with a warning, and leaves its Ref and Fn::GetAtt empty:
a grant on a skipped secret then becomes an IAM statement without a resource, which moto's IAM refuses,
and the deploy fails. A filler is the missing model: when CloudFormation creates (or deletes) a resource
of its type, the filler makes the same resource through that service's own API, called over HTTP on this
very server (boto3, as any client would), and gives CloudFormation the real Ref and attributes back.

Nothing is filled in silently: every fill is one JSON line in the file named by SHIELDWATCH_FILL_LOG
(logical id, type, physical id, the API call, or "stand-in only" for a service moto does not emulate),
which test/deploy prints and checks. To cover a new resource type of the stack, add a filler to FILLERS.
"""

import base64
import hashlib
import http.server
import io
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import uuid
import zipfile
from typing import Any, Callable

import boto3
from moto.core.common_models import CloudFormationModel

ACCOUNT = "123456789012"
_FILL_LOG_LOCK = threading.Lock()


def _port() -> int:
    argv = sys.argv[1:]
    for flag in ("-p", "--port"):
        if flag in argv:
            return int(argv[argv.index(flag) + 1])
    return int(os.environ.get("MOTO_PORT", "5000"))


def _client(service: str, region: str) -> Any:
    # localhost, not 127.0.0.1: moto's S3 reads a host of 127.0.0.1 as a bucket name.
    return boto3.client(
        service,
        endpoint_url=f"http://localhost:{_port()}",
        region_name=region,
        aws_access_key_id="filler",
        aws_secret_access_key="filler",
    )


def _log(entry: dict[str, Any]) -> None:
    path = os.environ.get("SHIELDWATCH_FILL_LOG")
    line = json.dumps(entry, sort_keys=True)
    print(f"filled in: {line}", file=sys.stderr, flush=True)
    if path:
        with _FILL_LOG_LOCK, open(path, "a", encoding="utf-8") as out:
            out.write(line + "\n")


_DYNAMIC = re.compile(r"\{\{resolve:secretsmanager:([^:}]+(?::[^:}]+)*?):SecretString:([^:}]*):([^:}]*):([^:}]*)\}\}")


def _resolve(value: Any, region: str) -> Any:
    """CloudFormation's dynamic references to Secrets Manager, which moto leaves as text."""
    if isinstance(value, dict):
        return {k: _resolve(v, region) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolve(v, region) for v in value]
    if not isinstance(value, str) or "{{resolve:secretsmanager:" not in value:
        return value

    def one(match: re.Match[str]) -> str:
        secret_id, json_key, stage, version = match.groups()
        args: dict[str, str] = {"SecretId": secret_id}
        if stage:
            args["VersionStage"] = stage
        if version:
            args["VersionId"] = version
        text = _client("secretsmanager", region).get_secret_value(**args)["SecretString"]
        return str(json.loads(text)[json_key]) if json_key else text

    return _DYNAMIC.sub(one, value)


def _name(logical_id: str, stack: str, limit: int = 64) -> str:
    """A generated physical name as CloudFormation makes one: stack, logical id, random suffix."""
    suffix = secrets.token_hex(6).upper()
    return f"{stack}-{logical_id}"[: limit - len(suffix) - 1] + "-" + suffix


def _drop_none(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if v is not None}


def _json_text(value: Any) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else json.dumps(value)


# Each filler: (resolved properties, generated name, region, logical id) -> (physical id, attributes, the API
# call, delete callback).
Filled = tuple[str, dict[str, str], str, Callable[[], None]]


def fill_secret(p: dict[str, Any], name: str, region: str, logical_id: str) -> Filled:
    sm = _client("secretsmanager", region)
    # CloudFormation names a secret LOGICALID-RANDOM12; CDK's secretName token relies on exactly that form.
    secret_name = p.get("Name") or f"{logical_id}-{secrets.token_urlsafe(9).replace('-', 'x').replace('_', 'y')}"
    args = _drop_none({"Name": secret_name, "Description": p.get("Description"), "KmsKeyId": p.get("KmsKeyId")})
    if "SecretString" in p:
        args["SecretString"] = p["SecretString"]
    generate = p.get("GenerateSecretString")
    if "SecretString" not in p and isinstance(generate, dict):
        # CloudFormation generates the value at create time (the acknowledge link's signing key): so does this.
        password = sm.get_random_password(
            **_drop_none(
                {
                    "PasswordLength": None if "PasswordLength" not in generate else int(generate["PasswordLength"]),
                    "ExcludeCharacters": generate.get("ExcludeCharacters"),
                    "ExcludeNumbers": _bool(generate.get("ExcludeNumbers")),
                    "ExcludePunctuation": _bool(generate.get("ExcludePunctuation")),
                    "ExcludeUppercase": _bool(generate.get("ExcludeUppercase")),
                    "ExcludeLowercase": _bool(generate.get("ExcludeLowercase")),
                    "IncludeSpace": _bool(generate.get("IncludeSpace")),
                    "RequireEachIncludedType": _bool(generate.get("RequireEachIncludedType")),
                }
            )
        )["RandomPassword"]
        template, key = generate.get("SecretStringTemplate"), generate.get("GenerateStringKey")
        args["SecretString"] = (
            json.dumps({**json.loads(template), key: password}) if template is not None and key is not None else password
        )
    arn = sm.create_secret(**args)["ARN"]
    return arn, {"Id": arn}, "secretsmanager:CreateSecret", lambda: sm.delete_secret(
        SecretId=arn, ForceDeleteWithoutRecovery=True
    )


def fill_subscription(p: dict[str, Any], name: str, region: str, logical_id: str) -> Filled:
    sns = _client("sns", region)
    attributes = _drop_none(
        {
            "FilterPolicy": _json_text(p.get("FilterPolicy")),
            "FilterPolicyScope": p.get("FilterPolicyScope"),
            "RawMessageDelivery": None if p.get("RawMessageDelivery") is None else str(p["RawMessageDelivery"]).lower(),
            "RedrivePolicy": _json_text(p.get("RedrivePolicy")),
            "DeliveryPolicy": _json_text(p.get("DeliveryPolicy")),
        }
    )
    arn = sns.subscribe(
        TopicArn=p["TopicArn"],
        Protocol=p["Protocol"],
        Endpoint=p["Endpoint"],
        Attributes=attributes,
        ReturnSubscriptionArn=True,
    )["SubscriptionArn"]
    return arn, {}, "sns:Subscribe", lambda: sns.unsubscribe(SubscriptionArn=arn)


def fill_topic_policy(p: dict[str, Any], name: str, region: str, logical_id: str) -> Filled:
    sns = _client("sns", region)
    for topic in p["Topics"]:
        sns.set_topic_attributes(TopicArn=topic, AttributeName="Policy", AttributeValue=json.dumps(p["PolicyDocument"]))
    return name, {}, "sns:SetTopicAttributes(Policy)", lambda: None


def fill_queue_policy(p: dict[str, Any], name: str, region: str, logical_id: str) -> Filled:
    sqs = _client("sqs", region)
    for url in p["Queues"]:
        sqs.set_queue_attributes(QueueUrl=url, Attributes={"Policy": json.dumps(p["PolicyDocument"])})
    return name, {}, "sqs:SetQueueAttributes(Policy)", lambda: None


_ALARM_KEYS = (
    "AlarmDescription ActionsEnabled OKActions AlarmActions InsufficientDataActions MetricName Namespace "
    "Statistic ExtendedStatistic Dimensions Period Unit EvaluationPeriods DatapointsToAlarm Threshold "
    "ComparisonOperator TreatMissingData EvaluateLowSampleCountPercentile Metrics ThresholdMetricId"
).split()


def fill_alarm(p: dict[str, Any], name: str, region: str, logical_id: str) -> Filled:
    cw = _client("cloudwatch", region)
    alarm_name = p.get("AlarmName") or name
    args = {k: p[k] for k in _ALARM_KEYS if k in p}
    for k in ("Threshold",):
        if k in args:
            args[k] = float(args[k])
    for k in ("Period", "EvaluationPeriods", "DatapointsToAlarm"):
        if k in args:
            args[k] = int(args[k])
    cw.put_metric_alarm(AlarmName=alarm_name, **args)
    arn = cw.describe_alarms(AlarmNames=[alarm_name])["MetricAlarms"][0]["AlarmArn"]
    return alarm_name, {"Arn": arn}, "cloudwatch:PutMetricAlarm", lambda: cw.delete_alarms(AlarmNames=[alarm_name])


def _bool(value: Any) -> bool | None:
    """A CloudFormation boolean (true, "true") for boto3, or None when absent."""
    return None if value is None else str(value).lower() == "true"


def fill_function_url(p: dict[str, Any], name: str, region: str, logical_id: str) -> Filled:
    lam = _client("lambda", region)
    args = _drop_none(
        {
            "FunctionName": p["TargetFunctionArn"],
            "AuthType": p["AuthType"],
            "Cors": p.get("Cors"),
            "InvokeMode": p.get("InvokeMode"),
        }
    )
    made = lam.create_function_url_config(**args)
    # CloudFormation's FunctionUrl ends with "/" (moto's API answer does not).
    url = made["FunctionUrl"] if made["FunctionUrl"].endswith("/") else made["FunctionUrl"] + "/"
    return made["FunctionArn"], {"FunctionUrl": url, "FunctionArn": made["FunctionArn"]}, (
        "lambda:CreateFunctionUrlConfig"
    ), lambda: lam.delete_function_url_config(FunctionName=p["TargetFunctionArn"])


def fill_event_invoke_config(p: dict[str, Any], name: str, region: str, logical_id: str) -> Filled:
    lam = _client("lambda", region)
    args = _drop_none(
        {
            "FunctionName": p["FunctionName"],
            "Qualifier": p.get("Qualifier"),
            "MaximumRetryAttempts": None if "MaximumRetryAttempts" not in p else int(p["MaximumRetryAttempts"]),
            "MaximumEventAgeInSeconds": None
            if "MaximumEventAgeInSeconds" not in p
            else int(p["MaximumEventAgeInSeconds"]),
            "DestinationConfig": p.get("DestinationConfig"),
        }
    )
    lam.put_function_event_invoke_config(**args)
    return name, {}, "lambda:PutFunctionEventInvokeConfig", lambda: lam.delete_function_event_invoke_config(
        **_drop_none({"FunctionName": p["FunctionName"], "Qualifier": p.get("Qualifier")})
    )


def fill_schedule(p: dict[str, Any], name: str, region: str, logical_id: str) -> Filled:
    scheduler = _client("scheduler", region)
    schedule_name = p.get("Name") or name
    target = dict(p["Target"])
    if "RetryPolicy" in target:
        target["RetryPolicy"] = {k: int(v) for k, v in target["RetryPolicy"].items()}
    args = _drop_none(
        {
            "Name": schedule_name,
            "GroupName": p.get("GroupName"),
            "ScheduleExpression": p["ScheduleExpression"],
            "ScheduleExpressionTimezone": p.get("ScheduleExpressionTimezone"),
            "FlexibleTimeWindow": p["FlexibleTimeWindow"],
            "Target": target,
            "State": p.get("State"),
            "Description": p.get("Description"),
        }
    )
    arn = scheduler.create_schedule(**args)["ScheduleArn"]
    group = p.get("GroupName") or "default"
    return schedule_name, {"Arn": arn}, "scheduler:CreateSchedule", lambda: scheduler.delete_schedule(
        Name=schedule_name, GroupName=group
    )


def fill_connection(p: dict[str, Any], name: str, region: str, logical_id: str) -> Filled:
    events = _client("events", region)
    connection_name = p.get("Name") or name
    result = events.create_connection(
        **_drop_none(
            {
                "Name": connection_name,
                "Description": p.get("Description"),
                "AuthorizationType": p["AuthorizationType"],
                "AuthParameters": _resolve(p["AuthParameters"], region),
            }
        )
    )
    arn = result["ConnectionArn"]
    described = events.describe_connection(Name=connection_name)
    return (
        connection_name,
        {"Arn": arn, "SecretArn": described.get("SecretArn", "")},
        "events:CreateConnection",
        lambda: events.delete_connection(Name=connection_name),
    )


def fill_api_destination(p: dict[str, Any], name: str, region: str, logical_id: str) -> Filled:
    events = _client("events", region)
    destination_name = p.get("Name") or name
    arn = events.create_api_destination(
        **_drop_none(
            {
                "Name": destination_name,
                "Description": p.get("Description"),
                "ConnectionArn": p["ConnectionArn"],
                "InvocationEndpoint": _resolve(p["InvocationEndpoint"], region),
                "HttpMethod": p["HttpMethod"],
                "InvocationRateLimitPerSecond": None
                if "InvocationRateLimitPerSecond" not in p
                else int(p["InvocationRateLimitPerSecond"]),
            }
        )
    )["ApiDestinationArn"]
    return destination_name, {"Arn": arn}, "events:CreateApiDestination", lambda: events.delete_api_destination(
        Name=destination_name
    )


def _ints(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _ints(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_ints(v) for v in value]
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return value


def fill_pipe(p: dict[str, Any], name: str, region: str, logical_id: str) -> Filled:
    pipes = _client("pipes", region)
    pipe_name = p.get("Name") or name
    args = _drop_none(
        {
            "Name": pipe_name,
            "Description": p.get("Description"),
            "DesiredState": p.get("DesiredState"),
            "RoleArn": p["RoleArn"],
            "Source": p["Source"],
            "SourceParameters": _ints(p.get("SourceParameters")),
            "Target": p["Target"],
            "TargetParameters": _resolve(p.get("TargetParameters"), region),
        }
    )
    arn = pipes.create_pipe(**args)["Arn"]
    return pipe_name, {"Arn": arn}, "pipes:CreatePipe", lambda: pipes.delete_pipe(Name=pipe_name)


def stand_in_chatbot(kind: str) -> Callable[[dict[str, Any], str, str, str], Filled]:
    """Chatbot has no emulated API: the ARN AWS would give, nothing created (listed as such)."""

    def fill(p: dict[str, Any], name: str, region: str, logical_id: str) -> Filled:
        config_name = p.get("ConfigurationName") or name
        arn = f"arn:aws:chatbot::{ACCOUNT}:chat-configuration/{kind}/{config_name}"
        return arn, {"Arn": arn}, "stand-in only: moto has no AWS Chatbot API", lambda: None

    return fill


def stand_in_metadata(p: dict[str, Any], name: str, region: str, logical_id: str) -> Filled:
    return name, {}, "stand-in only: CDK metadata, nothing to create", lambda: None


def fill_bucket_policy(p: dict[str, Any], name: str, region: str, logical_id: str) -> Filled:
    s3 = _client("s3", region)
    bucket = p["Bucket"]
    s3.put_bucket_policy(Bucket=bucket, Policy=json.dumps(p["PolicyDocument"]))
    return name, {}, "s3:PutBucketPolicy", lambda: s3.delete_bucket_policy(Bucket=bucket)


def _cloudfront_items(values: list[Any] | None) -> dict[str, Any]:
    """CloudFormation's lists are the API's `{Quantity, Items}`."""
    items = list(values or [])
    return {"Quantity": len(items), "Items": items} if items else {"Quantity": 0}


def fill_origin_access_control(p: dict[str, Any], name: str, region: str, logical_id: str) -> Filled:
    cloudfront = _client("cloudfront", region)
    control = cloudfront.create_origin_access_control(OriginAccessControlConfig=p["OriginAccessControlConfig"])
    control_id = control["OriginAccessControl"]["Id"]
    etag = control["ETag"]
    return control_id, {"Id": control_id}, "cloudfront:CreateOriginAccessControl", lambda: (
        cloudfront.delete_origin_access_control(Id=control_id, IfMatch=etag)
    )


def fill_public_key(p: dict[str, Any], name: str, region: str, logical_id: str) -> Filled:
    cloudfront = _client("cloudfront", region)
    config = p["PublicKeyConfig"]
    if not config.get("EncodedKey"):
        # A custom resource's attribute that moto left empty would make a key of nothing: fail, as AWS would.
        raise ValueError(f"{logical_id}: PublicKeyConfig.EncodedKey is empty")
    created = cloudfront.create_public_key(PublicKeyConfig=config)
    key_id = created["PublicKey"]["Id"]
    etag = created["ETag"]
    return key_id, {"Id": key_id, "CreatedTime": str(created["PublicKey"]["CreatedTime"])}, (
        "cloudfront:CreatePublicKey"
    ), lambda: cloudfront.delete_public_key(Id=key_id, IfMatch=etag)


def fill_key_group(p: dict[str, Any], name: str, region: str, logical_id: str) -> Filled:
    cloudfront = _client("cloudfront", region)
    config = dict(p["KeyGroupConfig"])
    created = cloudfront.create_key_group(KeyGroupConfig=config)
    group_id = created["KeyGroup"]["Id"]
    # moto 5.2 has no DeleteKeyGroup: the group stays in the emulator after the stack (nothing refers to it).
    return group_id, {"Id": group_id}, "cloudfront:CreateKeyGroup", lambda: None


def stand_in_response_headers_policy(p: dict[str, Any], name: str, region: str, logical_id: str) -> Filled:
    """moto has no response headers policy API: an id as AWS would give, nothing created (listed as such)."""
    policy_id = str(uuid.uuid4())
    return policy_id, {"Id": policy_id, "LastModifiedTime": "2026-01-01T00:00:00Z"}, (
        "stand-in only: moto has no CloudFront response headers policy API"
    ), lambda: None


def _distribution_config(p: dict[str, Any]) -> dict[str, Any]:
    """CloudFormation's DistributionConfig in the API's shape (lists as `{Quantity, Items}`)."""
    c = p["DistributionConfig"]
    behavior = dict(c["DefaultCacheBehavior"])
    methods = behavior.pop("AllowedMethods", ["GET", "HEAD"])
    cached = behavior.pop("CachedMethods", ["GET", "HEAD"])
    behavior["AllowedMethods"] = {**_cloudfront_items(methods), "CachedMethods": _cloudfront_items(cached)}
    groups = behavior.pop("TrustedKeyGroups", [])
    behavior["TrustedKeyGroups"] = {"Enabled": bool(groups), **_cloudfront_items(groups)}
    origins = []
    for origin in c["Origins"]:
        origin = dict(origin)
        origin.setdefault("S3OriginConfig", {"OriginAccessIdentity": ""})
        origins.append(origin)
    return _drop_none(
        {
            "CallerReference": secrets.token_hex(8),
            "Comment": c.get("Comment", ""),
            "DefaultRootObject": c.get("DefaultRootObject"),
            "Enabled": bool(c.get("Enabled", True)),
            "HttpVersion": c.get("HttpVersion"),
            "IsIPV6Enabled": c.get("IPV6Enabled"),
            "PriceClass": c.get("PriceClass"),
            "Origins": _cloudfront_items(origins),
            "DefaultCacheBehavior": behavior,
        }
    )


def fill_distribution(p: dict[str, Any], name: str, region: str, logical_id: str) -> Filled:
    cloudfront = _client("cloudfront", region)
    created = cloudfront.create_distribution(DistributionConfig=_distribution_config(p))
    distribution = created["Distribution"]
    distribution_id = distribution["Id"]
    etag = created["ETag"]
    return distribution_id, {"Id": distribution_id, "DomainName": distribution["DomainName"]}, (
        "cloudfront:CreateDistribution"
    ), lambda: cloudfront.delete_distribution(Id=distribution_id, IfMatch=etag)


#: What the fillers know of the CloudFormation request being filled (a custom resource needs its stack's id).
_REQUEST = threading.local()


def run_deployed_function(function_arn: str, event: dict[str, Any], region: str) -> str:
    """Runs a deployed function's code once, as test/deploy does with the poller: the asset its template named
    (read from the bootstrap bucket, its SHA-256 checked against CodeSha256), in a Node process of this machine
    with the function's deployed environment and its role's credentials, against this emulator. Returns the
    process's output."""
    from moto.awslambda.models import lambda_backends

    lam = _client("lambda", region)
    config = lam.get_function(FunctionName=function_arn)["Configuration"]
    # moto's get-function code location names a bucket that does not exist; the function keeps its source.
    code = lambda_backends[ACCOUNT][region].get_function(function_arn).code
    zipped = _client("s3", region).get_object(Bucket=code["S3Bucket"], Key=code["S3Key"])["Body"].read()
    digest = base64.b64encode(hashlib.sha256(zipped).digest()).decode()
    if digest != config["CodeSha256"]:
        raise ValueError(f"the asset of {function_arn} is not the deployed code ({digest} != {config['CodeSha256']})")
    work = tempfile.mkdtemp(prefix="shieldwatch-fill-")
    try:
        code_dir = os.path.join(work, "code")
        with zipfile.ZipFile(io.BytesIO(zipped)) as archive:
            archive.extractall(code_dir)
        event_file = os.path.join(work, "event.json")
        with open(event_file, "w", encoding="utf-8") as out:
            json.dump(event, out)
        credentials = _client("sts", region).assume_role(RoleArn=config["Role"], RoleSessionName="deploy-fill")[
            "Credentials"
        ]
        env = {
            "PATH": os.environ.get("PATH", ""),
            **config.get("Environment", {}).get("Variables", {}),
            "AWS_REGION": region,
            "AWS_DEFAULT_REGION": region,
            "AWS_LAMBDA_FUNCTION_NAME": config["FunctionName"],
            "AWS_LAMBDA_FUNCTION_VERSION": "$LATEST",
            "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": str(config.get("MemorySize", 128)),
            "LAMBDA_TASK_ROOT": code_dir,
            "TZ": ":UTC",
            "AWS_ACCESS_KEY_ID": credentials["AccessKeyId"],
            "AWS_SECRET_ACCESS_KEY": credentials["SecretAccessKey"],
            "AWS_SESSION_TOKEN": credentials["SessionToken"],
            "AWS_ENDPOINT_URL": f"http://127.0.0.1:{_port()}",
            "AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED": "true",
            "SHIELDWATCH_DEPLOY_TEST_FUNCTION_ARN": config["FunctionArn"],
        }
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "run-deployed-function.mjs")
        node = os.environ.get("SHIELDWATCH_NODE") or shutil.which("node") or "node"
        done = subprocess.run(
            [node, script, code_dir, event_file, config.get("Handler", "index.handler"), str(config.get("Timeout", 60))],
            env=env,
            cwd=code_dir,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"the deployed function {function_arn} failed: {done.stdout}{done.stderr}")
        return done.stdout
    finally:
        shutil.rmtree(work, ignore_errors=True)


def fill_lambda_custom_resource(p: dict[str, Any], name: str, region: str, logical_id: str) -> Filled:
    """A Lambda-backed custom resource: moto would invoke its function in Docker, and asynchronously, leaving
    its attributes empty for the resources that use them. Here the deployed function's own code runs (see
    run_deployed_function) with the Create event CloudFormation sends, and answers to a one-off loopback URL
    as it would to CloudFormation's pre-signed one; its Data are the resource's attributes."""
    answers: list[bytes] = []

    class Responder(http.server.BaseHTTPRequestHandler):
        def do_PUT(self) -> None:  # noqa: N802 (http.server's name)
            answers.append(self.rfile.read(int(self.headers.get("content-length", "0"))))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            return None

    server = http.server.HTTPServer(("127.0.0.1", 0), Responder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        event = {
            "RequestType": "Create",
            "ServiceToken": p["ServiceToken"],
            "ResponseURL": f"http://127.0.0.1:{server.server_address[1]}/cloudformation-response",
            "StackId": getattr(_REQUEST, "stack_id", ""),
            "RequestId": str(uuid.uuid4()),
            "LogicalResourceId": logical_id,
            "ResourceType": getattr(_REQUEST, "resource_type", ""),
            "ResourceProperties": p,
        }
        output = run_deployed_function(p["ServiceToken"], event, region)
    finally:
        server.shutdown()
        server.server_close()
    if len(answers) != 1:
        raise RuntimeError(f"{logical_id}: the function answered {len(answers)} times: {output}")
    answer = json.loads(answers[0])
    if answer.get("Status") != "SUCCESS":
        raise RuntimeError(f"{logical_id}: the function answered {answer.get('Status')}: {answer.get('Reason')}")
    function = p["ServiceToken"].split(":")[-1]
    return answer["PhysicalResourceId"], dict(answer.get("Data") or {}), (
        f"the deployed function {function} run with the Create event (its asset, CodeSha256 checked)"
    ), lambda: None


#: The resource types moto 5.2's CloudFormation skips, each with the filler that creates it.
FILLERS: dict[str, Callable[[dict[str, Any], str, str, str], Filled]] = {
    "AWS::SecretsManager::Secret": fill_secret,
    "AWS::SNS::Subscription": fill_subscription,
    "AWS::SNS::TopicPolicy": fill_topic_policy,
    "AWS::SQS::QueuePolicy": fill_queue_policy,
    "AWS::CloudWatch::Alarm": fill_alarm,
    "AWS::Lambda::EventInvokeConfig": fill_event_invoke_config,
    "AWS::Lambda::Url": fill_function_url,
    "AWS::Scheduler::Schedule": fill_schedule,
    "AWS::Events::Connection": fill_connection,
    "AWS::Events::ApiDestination": fill_api_destination,
    "AWS::Pipes::Pipe": fill_pipe,
    "AWS::Chatbot::SlackChannelConfiguration": stand_in_chatbot("slack-channel"),
    "AWS::Chatbot::MicrosoftTeamsChannelConfiguration": stand_in_chatbot("microsoft-teams-channel"),
    "AWS::CDK::Metadata": stand_in_metadata,
    "AWS::S3::BucketPolicy": fill_bucket_policy,
    "AWS::CloudFront::OriginAccessControl": fill_origin_access_control,
    "AWS::CloudFront::PublicKey": fill_public_key,
    "AWS::CloudFront::KeyGroup": fill_key_group,
    "AWS::CloudFront::ResponseHeadersPolicy": stand_in_response_headers_policy,
    "AWS::CloudFront::Distribution": fill_distribution,
    "Custom::StatusPageSigningKey": fill_lambda_custom_resource,
}


def _model(resource_type: str, filler: Callable[[dict[str, Any], str, str, str], Filled]) -> type:
    class Filler(CloudFormationModel):
        # moto's model registry reads the service from the module name (moto.<service>).
        __module__ = "moto.shieldwatch_fillers"

        def __init__(self, physical_id: str, attributes: dict[str, str], delete: Callable[[], None], entry: dict[str, Any]):
            self.physical_resource_id = physical_id
            self._attributes = attributes
            self._delete = delete
            self._entry = entry

        @staticmethod
        def cloudformation_name_type() -> str:
            return ""

        @staticmethod
        def cloudformation_type() -> str:
            return resource_type

        @classmethod
        def has_cfn_attr(cls, attr: str) -> bool:
            return True

        @classmethod
        def create_from_cloudformation_json(  # type: ignore[override]
            cls, resource_name: str, cloudformation_json: dict[str, Any], account_id: str, region_name: str, **kwargs: Any
        ) -> "Filler":
            logical_id = kwargs.get("LogicalId", resource_name)
            stack = resource_name.split("-", 1)[0]
            props = cloudformation_json.get("Properties", {})
            _REQUEST.stack_id = kwargs.get("StackId", "")
            _REQUEST.resource_type = kwargs.get("ResourceType", resource_type)
            try:
                physical_id, attributes, how, delete = filler(props, _name(logical_id, stack), region_name, logical_id)
            except Exception as error:  # a filler that fails fails the deploy, as the resource would
                _log({"logicalId": logical_id, "type": resource_type, "error": str(error)})
                raise
            entry = {"logicalId": logical_id, "type": resource_type, "physicalId": physical_id, "via": how}
            _log({**entry, "action": "create"})
            return cls(physical_id, attributes, delete, entry)

        @classmethod
        def update_from_cloudformation_json(  # type: ignore[override]
            cls, original_resource: Any, new_resource_name: str, cloudformation_json: dict[str, Any], account_id: str, region_name: str
        ) -> Any:
            raise NotImplementedError(f"update of a filled-in {resource_type} (delete the stack and deploy again)")

        @classmethod
        def delete_from_cloudformation_json(  # type: ignore[override]
            cls, resource_name: str, cloudformation_json: dict[str, Any], account_id: str, region_name: str
        ) -> None:
            return None

        def delete(self, account_id: str, region_name: str) -> None:
            try:
                self._delete()
                _log({**self._entry, "action": "delete"})
            except Exception as error:
                # moto deletes in no particular order: an invoke config goes with its function, a subscription
                # with its topic. Already gone is deleted; anything else fails the delete as it would in AWS.
                code = getattr(error, "response", {}).get("Error", {}).get("Code", "")
                if "NotFound" not in code:
                    raise
                _log({**self._entry, "action": "delete", "note": f"already gone ({code})"})

        def get_cfn_attribute(self, attribute_name: str) -> Any:
            if attribute_name in self._attributes:
                return self._attributes[attribute_name]
            raise NotImplementedError(f"attribute {attribute_name} of a filled-in {resource_type}")

        def is_created(self) -> bool:
            return True

    Filler.__name__ = "Filler_" + re.sub(r"\W", "_", resource_type)
    return Filler


def _correct_log_group_arn() -> None:
    """AWS::Logs::LogGroup's Arn attribute is `arn:...:log-group:NAME:*` in CloudFormation (its documented
    return value, which lets a grant on it cover the group's streams); moto 5.2 returns it without `:*`."""
    from moto.logs.models import LogGroup

    original = LogGroup.get_cfn_attribute

    def get_cfn_attribute(self: Any, attribute_name: str) -> Any:
        value = original(self, attribute_name)
        return f"{value}:*" if attribute_name == "Arn" and not value.endswith(":*") else value

    LogGroup.get_cfn_attribute = get_cfn_attribute  # type: ignore[method-assign]


def _fill_custom_resources() -> None:
    """moto answers every `Custom::` type with its own model, which invokes the function in Docker in the
    background and leaves the resource's attributes empty meanwhile; a custom type with a filler gets the
    filler instead."""
    from moto.cloudformation import parsing

    original = parsing.resource_class_from_type

    def resource_class_from_type(resource_type: str) -> Any:
        if resource_type.startswith("Custom::") and resource_type in FILLERS:
            return parsing.get_model_map()[resource_type]
        return original(resource_type)

    parsing.resource_class_from_type = resource_class_from_type


#: The condition keys of a statement about the transport alone (CDK's enforceSSL and minimumTLSVersion).
_TRANSPORT_KEYS = {"aws:securetransport", "s3:tlsversion"}


def _transport_only(statement: dict[str, Any]) -> bool:
    keys = {k.lower() for block in (statement.get("Condition") or {}).values() for k in block}
    return statement.get("Effect") == "Deny" and bool(keys) and keys <= _TRANSPORT_KEYS


def _bucket_policies_over_tls() -> None:
    """moto's S3 applies a bucket policy's statements without their conditions, so a TLS-only Deny
    (`aws:SecureTransport` false, `s3:TlsVersion` below 1.2: the bootstrap bucket's and the status page's)
    refuses every object request. The emulator speaks HTTP where AWS speaks HTTPS: its S3 evaluates a bucket
    policy as for a request over TLS 1.2, where those Denies do not apply. The policy itself is stored as
    deployed (GetBucketPolicy returns it whole)."""
    from moto.iam.access_control import IAMPolicy, PermissionResult
    from moto.s3.models import FakeBucket

    def get_permission(self: Any, action: str, resource: str) -> Any:
        if self.policy is None:
            return PermissionResult.NEUTRAL
        policy = json.loads(self.policy.decode() if isinstance(self.policy, bytes) else self.policy)
        statements = policy.get("Statement", [])
        statements = [statements] if isinstance(statements, dict) else statements
        kept = [st for st in statements if not _transport_only(st)]
        if not kept:
            return PermissionResult.NEUTRAL
        return IAMPolicy(json.dumps({**policy, "Statement": kept})).is_action_permitted(action, resource)

    FakeBucket.get_permission = get_permission  # type: ignore[method-assign]


#: Where moto's CloudFormation gives a value that differs from AWS's, corrected (docs/deploy-test.md).
CORRECTIONS = [_correct_log_group_arn, _fill_custom_resources, _bucket_policies_over_tls]
for _correct in CORRECTIONS:
    _correct()

# Kept: moto finds models through CloudFormationModel.__subclasses__(), which holds them only weakly.
MODELS = [_model(_type, _filler) for _type, _filler in FILLERS.items()]

if __name__ == "__main__":
    if "--list-types" in sys.argv:
        print("\n".join(FILLERS))
        sys.exit(0)
    from moto.server import main

    main(sys.argv[1:])
