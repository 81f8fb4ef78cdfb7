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

import json
import os
import re
import secrets
import sys
import threading
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


#: The resource types moto 5.2's CloudFormation skips, each with the filler that creates it.
FILLERS: dict[str, Callable[[dict[str, Any], str, str, str], Filled]] = {
    "AWS::SecretsManager::Secret": fill_secret,
    "AWS::SNS::Subscription": fill_subscription,
    "AWS::SNS::TopicPolicy": fill_topic_policy,
    "AWS::SQS::QueuePolicy": fill_queue_policy,
    "AWS::CloudWatch::Alarm": fill_alarm,
    "AWS::Lambda::EventInvokeConfig": fill_event_invoke_config,
    "AWS::Scheduler::Schedule": fill_schedule,
    "AWS::Events::Connection": fill_connection,
    "AWS::Events::ApiDestination": fill_api_destination,
    "AWS::Pipes::Pipe": fill_pipe,
    "AWS::Chatbot::SlackChannelConfiguration": stand_in_chatbot("slack-channel"),
    "AWS::Chatbot::MicrosoftTeamsChannelConfiguration": stand_in_chatbot("microsoft-teams-channel"),
    "AWS::CDK::Metadata": stand_in_metadata,
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


#: Where moto's CloudFormation gives a value that differs from AWS's, corrected (docs/deploy-test.md).
CORRECTIONS = [_correct_log_group_arn]
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
